package dev.warden.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Leadership;
import dev.warden.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.SmartLifecycleRoleController;

/**
 * {@link WardenLeaderInitiator} against a real Redis: Spring Integration's leader events, published through its
 * {@link DefaultLeaderEventPublisher}, with the epoch in their context; and in a Spring context, the
 * {@code @EventListener}s and role-based endpoints that listen for them.
 */
class WardenLeaderInitiatorTest extends LeaderTestSupport {
    private final List<WardenLeaderInitiator> initiators = new ArrayList<>();

    @AfterEach
    void stopInitiators() {
        initiators.forEach(WardenLeaderInitiator::stop);
    }

    @Test
    void oneOfTwoIsGrantedAndAYieldHandsOverWithAHigherEpoch() throws InterruptedException {
        String role = role();
        Recording candidate = new Recording("a", role);
        WardenLeaderInitiator a = initiator(new WardenLeaderInitiator(client(), candidate));
        WardenLeaderInitiator b = initiator(new WardenLeaderInitiator(client(), role));
        a.start();
        WardenLeaderContext first = granted(a);
        assertThat(first.getRole()).isEqualTo(role);
        assertThat(first.getEpoch()).isPositive();
        assertThat(first.isLeader()).isTrue();
        assertThat(a.getContext()).isSameAs(first);
        assertThat(candidate.heard).containsExactly("granted " + first.getEpoch());
        b.start();
        // b waits in the election's queue: it is not granted while a leads.
        awaitQueued(role, 1);
        assertThat(events(b)).isEmpty();
        assertThat(b.getContext().isLeader()).isFalse();
        assertThat(b.getContext().getEpoch()).isZero();

        first.yield();
        WardenLeaderContext yielded = revoked(a);
        assertThat(yielded).isSameAs(first);
        assertThat(yielded.isLeader()).isFalse();
        assertThat(yielded.getRevocation()).contains(Leadership.Revocation.STEPPED_DOWN);
        WardenLeaderContext second = granted(b);
        assertThat(second.getEpoch()).isGreaterThan(first.getEpoch());
        assertThat(a.getContext().isLeader()).isFalse();
        assertThat(candidate.heard).containsExactly("granted " + first.getEpoch(), "revoked " + first.getEpoch());
        // A stale context yields nothing: b still leads.
        first.yield();
        assertThat(b.getContext().isLeader()).isTrue();
        assertThat(events(a)).isEmpty();
        assertThat(events(b)).isEmpty();
    }

    @Test
    void aForcedReleaseIsRevokedThenSomeoneIsGrantedAgainAndStopIsRevokedBeforeItReturns()
            throws InterruptedException {
        String role = role();
        // Leases renewed every second: the forced release is found within about that.
        WardenLeaderInitiator a = initiator(new WardenLeaderInitiator(client(Duration.ofSeconds(3)), role));
        WardenLeaderInitiator b = initiator(new WardenLeaderInitiator(client(Duration.ofSeconds(3)), role));
        a.start();
        WardenLeaderContext first = granted(a);
        b.start();
        awaitQueued(role, 1);

        assertThat(observer.lock(role).forceRelease()).hasValue(first.getEpoch());
        WardenLeaderContext lost = revoked(a);
        assertThat(lost.getEpoch()).isEqualTo(first.getEpoch());
        assertThat(lost.getRevocation()).contains(Leadership.Revocation.LOST);
        // b was waiting: the release wakes it (perhaps before a learns); a joins again behind it.
        WardenLeaderContext second = granted(b);
        assertThat(second.getEpoch()).isGreaterThan(first.getEpoch());

        awaitQueued(role, 1);
        b.stop();
        // Published before stop() returned.
        AbstractLeaderEvent stopped = events(b).poll();
        assertThat(stopped).isInstanceOf(OnRevokedEvent.class);
        assertThat(stopped.getSource()).isSameAs(b);
        assertThat(((WardenLeaderContext) stopped.getContext()).getRevocation())
                .contains(Leadership.Revocation.CLOSED);
        assertThat(b.isRunning()).isFalse();
        assertThat(granted(a).getEpoch()).isGreaterThan(second.getEpoch());

        a.stop();
        assertThat(events(a).poll()).isInstanceOf(OnRevokedEvent.class);
        assertThat(observer.lock(role).inspect().held()).isFalse();
        assertThat(observer.lock(role).inspect().waiters()).isZero();
        // Stopped and started again: a new candidate, a new term.
        a.start();
        assertThat(granted(a).getEpoch()).isGreaterThan(second.getEpoch());
    }

    @Test
    void inASpringContextEventListenersAndRoleEndpointsFollowTheTerm() throws InterruptedException {
        String role = role();
        LockClient client = client();
        Endpoint endpoint = new Endpoint();
        Listener listener = new Listener();
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.registerBean(WardenLeaderInitiator.class, () -> new WardenLeaderInitiator(client, role));
            context.registerBean("endpoint", Endpoint.class, () -> endpoint);
            context.registerBean(SmartLifecycleRoleController.class,
                    () -> new SmartLifecycleRoleController(List.of(role), List.of(endpoint)));
            context.registerBean(Listener.class, () -> listener);
            context.refresh();

            AbstractLeaderEvent granted = listener.next();
            assertThat(granted).isInstanceOf(OnGrantedEvent.class);
            assertThat(granted.getRole()).isEqualTo(role);
            assertThat(((WardenLeaderContext) granted.getContext()).getEpoch()).isPositive();
            assertThat(eventually(endpoint::isRunning)).as("the role's endpoint started").isTrue();
            assertThat(observer.lock(role).isLocked()).isTrue();
        }
        // Closing the context stops the initiator: the term ends, the endpoint stops, the lease is released.
        assertThat(listener.next()).isInstanceOf(OnRevokedEvent.class);
        assertThat(endpoint.isRunning()).isFalse();
        assertThat(observer.lock(role).isLocked()).isFalse();
    }

    /** An endpoint of a role: started and stopped by the role controller, not with the context. */
    static final class Endpoint implements SmartLifecycle {
        private volatile boolean running;

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public boolean isAutoStartup() {
            return false;
        }
    }

    /** An application's {@code @EventListener}s of the leader events. */
    static final class Listener {
        final BlockingQueue<AbstractLeaderEvent> heard = new LinkedBlockingQueue<>();

        @EventListener
        public void granted(OnGrantedEvent event) {
            heard.add(event);
        }

        @EventListener
        public void revoked(OnRevokedEvent event) {
            heard.add(event);
        }

        AbstractLeaderEvent next() throws InterruptedException {
            AbstractLeaderEvent event = heard.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(event).as("a leader event within %s", WAIT).isNotNull();
            return event;
        }
    }

    /** A Spring Integration candidate that records what it is told. */
    static final class Recording extends AbstractCandidate {
        final List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();

        Recording(String id, String role) {
            super(id, role);
        }

        @Override
        public void onGranted(Context context) {
            heard.add("granted " + ((WardenLeaderContext) context).getEpoch());
        }

        @Override
        public void onRevoked(Context context) {
            heard.add("revoked " + ((WardenLeaderContext) context).getEpoch());
        }
    }

    private WardenLeaderContext granted(WardenLeaderInitiator from) throws InterruptedException {
        return next(OnGrantedEvent.class, from);
    }

    private WardenLeaderContext revoked(WardenLeaderInitiator from) throws InterruptedException {
        return next(OnRevokedEvent.class, from);
    }

    private WardenLeaderContext next(Class<? extends AbstractLeaderEvent> type, WardenLeaderInitiator from)
            throws InterruptedException {
        AbstractLeaderEvent event = next(type, (Object) from);
        assertThat(event.getRole()).isEqualTo(from.getRole());
        return (WardenLeaderContext) event.getContext();
    }

    private WardenLeaderInitiator initiator(WardenLeaderInitiator initiator) {
        initiator.setLeaderEventPublisher(recordingPublisher());
        initiators.add(initiator);
        return initiator;
    }

    private void awaitQueued(String role, int candidates) throws InterruptedException {
        assertThat(eventually(() -> observer.lock(role).inspect().waiters() == candidates))
                .as("%d candidates queued", candidates).isTrue();
    }

    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() - end < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(10);
        }
        return condition.getAsBoolean();
    }

    private LockClient client() {
        return client(null);
    }
}
