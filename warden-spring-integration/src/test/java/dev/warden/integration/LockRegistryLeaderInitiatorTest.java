package dev.warden.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnFailedToAcquireMutexEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's own {@link LockRegistryLeaderInitiator} over {@link WardenLockRegistry}: the behaviour of
 * its {@code LockRegistryLeaderInitiatorTests} (start and stop, one leader of two, a yield that hands over),
 * written from its documented behaviour against a real Redis; and what it does when the leader's lease is lost.
 */
class LockRegistryLeaderInitiatorTest extends LeaderTestSupport {
    private final List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();

    @AfterEach
    void stopInitiators() {
        initiators.forEach(LockRegistryLeaderInitiator::destroy);
    }

    @Test
    void startIsGrantedAndStopIsRevokedAndReleases() throws InterruptedException {
        String role = role();
        LockRegistryLeaderInitiator initiator = initiator(role, "a");
        initiator.start();
        AbstractLeaderEvent granted = next(OnGrantedEvent.class, initiator);
        assertThat(granted.getRole()).isEqualTo(role);
        assertThat(granted.getContext().isLeader()).isTrue();
        assertThat(initiator.getContext().isLeader()).isTrue();
        assertThat(observer.lock("leaders:" + role).isLocked()).isTrue();

        initiator.stop();
        next(OnRevokedEvent.class, initiator);
        assertThat(initiator.getContext().isLeader()).isFalse();
        assertThat(observer.lock("leaders:" + role).isLocked()).isFalse();
    }

    @Test
    void oneOfTwoLeadsAndAYieldHandsOverToTheOther() throws InterruptedException {
        String role = role();
        LockRegistryLeaderInitiator a = initiator(role, "a");
        LockRegistryLeaderInitiator b = initiator(role, "b");
        a.start();
        next(OnGrantedEvent.class, a);
        b.start();
        // b tries, in Warden's queue, for its busy-wait each time; it is never granted while a leads.
        assertThat(events(b).poll(1, TimeUnit.SECONDS)).isNull();
        assertThat(b.getContext().isLeader()).isFalse();

        yieldUntilTheOtherLeads(a, b);
        assertThat(b.getContext().isLeader()).isTrue();
        assertThat(a.getContext().isLeader()).isFalse();

        yieldUntilTheOtherLeads(b, a);
    }

    /**
     * {@code from} yields until {@code to} is granted, at most 3 times. Spring's initiator tries again at once
     * after a yield, and its rival tries in busy-wait periods: a yield that falls between two of the rival's tries
     * finds no waiter, and the one that yielded may lead again (seen once in CI, on a loaded machine). That counts as
     * a yield that handed over nothing; a lock that no candidate takes within {@link #WAIT} fails.
     */
    private void yieldUntilTheOtherLeads(LockRegistryLeaderInitiator from, LockRegistryLeaderInitiator to)
            throws InterruptedException {
        for (int yields = 1; yields <= 3; yields++) {
            from.getContext().yield();
            next(OnRevokedEvent.class, from);
            long deadline = System.nanoTime() + WAIT.toNanos();
            AbstractLeaderEvent again = null;
            while (again == null) {
                assertThat(System.nanoTime() - deadline).as("a candidate granted within %s", WAIT).isNegative();
                AbstractLeaderEvent granted = events(to).poll(10, TimeUnit.MILLISECONDS);
                if (granted != null) {
                    assertThat(granted).isInstanceOf(OnGrantedEvent.class);
                    return;
                }
                again = events(from).poll(10, TimeUnit.MILLISECONDS);
            }
            assertThat(again).isInstanceOf(OnGrantedEvent.class);
        }
        throw new AssertionError("the yielding candidate led again after each of 3 yields");
    }

    /**
     * A known limit, documented in docs/integrations.md: after its lease is lost, the leader is revoked and the other
     * candidate leads, but the deposed initiator never leads again. It keeps the lock's outer hold, so each later try
     * is a re-entry, which Warden refuses on a lost lease (it never takes an expired lock back on re-entry; Redis's
     * registry would). {@link WardenLeaderInitiator} has no such limit.
     */
    @Test
    void aLostLeaseRevokesTheLeaderAndTheOtherLeadsButTheDeposedDoesNotCompeteAgain() throws InterruptedException {
        String role = role();
        LockRegistryLeaderInitiator a = initiator(role, "a");
        LockRegistryLeaderInitiator b = initiator(role, "b");
        a.start();
        next(OnGrantedEvent.class, a);
        b.start();

        assertThat(observer.lock("leaders:" + role).forceRelease()).isPresent();
        // The next heartbeat's re-entry asks Redis, which no longer has a's lease.
        next(OnRevokedEvent.class, a);
        next(OnGrantedEvent.class, b);

        a.setPublishFailedEvents(true);
        b.stop();
        next(OnRevokedEvent.class, b);
        assertThat(observer.lock("leaders:" + role).isLocked()).isFalse();
        // The lock is free, and a fails to take it: its every try is a refused re-entry.
        AbstractLeaderEvent failed;
        do {
            failed = events(a).poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(failed).as("a failed-to-acquire event within %s", WAIT).isNotNull();
            assertThat(failed).isNotInstanceOf(OnGrantedEvent.class);
        } while (!(failed instanceof OnFailedToAcquireMutexEvent));
        assertThat(failed.getSource()).isSameAs(a);
        assertThat(observer.lock("leaders:" + role).isLocked()).isFalse();
        assertThat(a.getContext().isLeader()).isFalse();
    }

    /** An initiator on a registry of its own client, as in another process. */
    private LockRegistryLeaderInitiator initiator(String role, String id) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(
                new WardenLockRegistry(client(), "leaders"), new DefaultCandidate(id, role));
        initiator.setHeartBeatMillis(100);
        initiator.setBusyWaitMillis(50);
        initiator.setLeaderEventPublisher(recordingPublisher());
        initiators.add(initiator);
        return initiator;
    }

    private LockClient client() {
        // Leases renewed every second: a forced release is found by the watchdog within about that, if not first
        // by a heartbeat's re-entry.
        return client(Duration.ofSeconds(3));
    }
}
