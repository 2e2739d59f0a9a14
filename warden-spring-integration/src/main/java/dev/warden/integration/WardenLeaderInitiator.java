package dev.warden.integration;

import dev.warden.Leadership;
import dev.warden.LeadershipListener;
import dev.warden.LockClient;
import dev.warden.Term;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * Spring Integration's leader election on a Warden {@link Leadership}: while running, it is a candidate of the
 * election named by its role, and publishes Spring Integration's {@code OnGrantedEvent} when elected and
 * {@code OnRevokedEvent} when the term ends, so that {@code @EventListener}s of those events and the role-based
 * endpoints of a {@code SmartLifecycleRoleController} work as with {@code LockRegistryLeaderInitiator}. Both events
 * carry a {@link WardenLeaderContext}, whose {@link WardenLeaderContext#getEpoch() epoch} is the fencing token of
 * the term.
 *
 * <pre>{@code
 * @Bean
 * WardenLeaderInitiator leaderInitiator(LockClient client) {
 *     return new WardenLeaderInitiator(client, "billing");   // the role, and the election's lock's name
 * }
 *
 * @EventListener
 * void granted(OnGrantedEvent event) {
 *     long epoch = ((WardenLeaderContext) event.getContext()).getEpoch();
 * }
 * }</pre>
 *
 * <p>Unlike {@code LockRegistryLeaderInitiator}, nothing polls: a candidate waits in the queue of the election's
 * lock, and the release or expiry of the leader's lease elects the next at once. A term ends the moment its lease
 * is known lost (found gone, not renewed by its local deadline, released by force), on
 * {@link WardenLeaderContext#yield()}, and on {@link #stop()}; after the first two, the initiator joins again, behind
 * the candidates waiting.
 *
 * <p>Events are published on the client's callback threads, one at a time and in order: a term's revoked event
 * always follows its granted event. A listener that throws is logged and the initiator carries on. A
 * {@link Candidate}, if given, is told {@code onGranted} and {@code onRevoked} before the events, as
 * {@code LockRegistryLeaderInitiator} tells its own.
 *
 * <p>It is a {@link SmartLifecycle}: started with the context (unless {@link #setAutoStartup auto-startup} is off),
 * in a late phase ({@link #DEFAULT_PHASE}, as {@code LockRegistryLeaderInitiator}'s), and stopped early. Stopping
 * leaves the election (releasing the lease if it leads) and waits, up to {@link #STOP_WAIT}, until the last term's
 * revoked event was published. The client stays the caller's: the initiator neither creates nor closes it (closing
 * the client ends the term too).
 */
public final class WardenLeaderInitiator implements SmartLifecycle, ApplicationEventPublisherAware, DisposableBean {
    private static final Logger LOG = LoggerFactory.getLogger(WardenLeaderInitiator.class);
    /** The default phase: late to start, early to stop, as {@code LockRegistryLeaderInitiator}'s. */
    public static final int DEFAULT_PHASE = Integer.MAX_VALUE - 1000;
    /** How long {@link #stop()} waits for the last term's revoked event to be published. */
    public static final Duration STOP_WAIT = Duration.ofSeconds(10);

    private final LockClient client;
    private final String role;
    private final Candidate candidate;
    private volatile LeaderEventPublisher publisher;
    private volatile boolean publishFailedEvents;
    private volatile boolean autoStartup = true;
    private volatile int phase = DEFAULT_PHASE;
    /** The current run, from {@link #start} until {@link #stop}; null while stopped. Guarded by this. */
    private Run run;

    /**
     * An initiator for {@code role}, whose election is the lock named {@code role}.
     *
     * @throws NullPointerException if an argument is null
     */
    public WardenLeaderInitiator(LockClient client, String role) {
        this.client = Objects.requireNonNull(client, "client");
        this.role = Objects.requireNonNull(role, "role");
        this.candidate = null;
    }

    /**
     * An initiator for {@code candidate.getRole()}, whose election is the lock of that name, and which tells
     * {@code candidate} of each term, as {@code LockRegistryLeaderInitiator(registry, candidate)} does.
     *
     * @throws NullPointerException if an argument, or the candidate's role, is null
     */
    public WardenLeaderInitiator(LockClient client, Candidate candidate) {
        this.client = Objects.requireNonNull(client, "client");
        this.candidate = Objects.requireNonNull(candidate, "candidate");
        this.role = Objects.requireNonNull(candidate.getRole(), "candidate's role");
    }

    /**
     * Publishes the leader events through {@code publisher} (Spring Integration's {@link DefaultLeaderEventPublisher}
     * semantics: {@code publishOnGranted(this, context, role)}, {@code publishOnRevoked(...)}). Without one, the
     * events go to the application context, which a Spring context sets through
     * {@link #setApplicationEventPublisher}.
     *
     * @param publisher where the events go; null for none
     */
    public void setLeaderEventPublisher(LeaderEventPublisher publisher) {
        this.publisher = publisher;
    }

    /** Publishes through a {@link DefaultLeaderEventPublisher} on it, unless a leader event publisher was set. */
    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        if (publisher == null) {
            this.publisher = new DefaultLeaderEventPublisher(applicationEventPublisher);
        }
    }

    /**
     * Whether to publish {@code OnFailedToAcquireMutexEvent} when joining the election fails (Redis unreachable,
     * refused or timed out; the candidate tries again a second later). Off by default. Unlike
     * {@code LockRegistryLeaderInitiator}'s, it is not published while another candidate leads: a candidate waits in
     * the queue, it does not fail.
     */
    public void setPublishFailedEvents(boolean publishFailedEvents) {
        this.publishFailedEvents = publishFailedEvents;
    }

    /** @return the role, which is also the name of the election's lock */
    public String getRole() {
        return role;
    }

    /**
     * @return the current term's context if this initiator leads now, else a context with no term
     *         ({@code isLeader()} false)
     */
    public WardenLeaderContext getContext() {
        Run current;
        synchronized (this) {
            current = run;
        }
        WardenLeaderContext context = current == null ? null : current.current;
        return context != null && context.isLeader() ? context : new WardenLeaderContext(null, role, null);
    }

    /**
     * Joins the election, if not running.
     *
     * @throws IllegalStateException if the client is closed
     */
    @Override
    public void start() {
        synchronized (this) {
            if (run != null) {
                return;
            }
            Run next = new Run();
            // Under the run's monitor: its listener waits for its candidate before it tells anything.
            synchronized (next) {
                next.leadership = client.leadership(role, next);
            }
            run = next;
        }
        LOG.info("leader initiator of role '{}' started", role);
    }

    /**
     * Leaves the election, releasing the lease if it leads, and waits up to {@link #STOP_WAIT} until the last term's
     * revoked event was published (not when called from a listener of this initiator's events: that event comes
     * after the listener returns). Idempotent.
     */
    @Override
    public void stop() {
        Run stopped = detach();
        if (stopped == null) {
            return;
        }
        CountDownLatch done = new CountDownLatch(1);
        stopped.stop(done::countDown);
        if (Thread.currentThread() == stopped.telling) {
            return;
        }
        try {
            if (!done.await(STOP_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
                LOG.warn("leader initiator of role '{}' stopped without its revoked event within {}: a listener "
                        + "of its events is slow", role, STOP_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Leaves the election, releasing the lease if it leads, and runs {@code callback} once the last term's revoked
     * event was published (at once if it did not lead).
     */
    @Override
    public void stop(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        Run stopped = detach();
        if (stopped == null) {
            callback.run();
            return;
        }
        stopped.stop(callback);
    }

    /** Stops: a Spring context calls it at shutdown. */
    @Override
    public void destroy() {
        stop();
    }

    @Override
    public synchronized boolean isRunning() {
        return run != null;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    public void setPhase(int phase) {
        this.phase = phase;
    }

    @Override
    public String toString() {
        return "WardenLeaderInitiator{role=" + role + ", " + (isRunning() ? "running" : "stopped") + "}";
    }

    private synchronized Run detach() {
        Run stopped = run;
        run = null;
        return stopped;
    }

    /**
     * One run, from a start to its stop: a candidate and what its listener heard. Its calls come one at a time, in
     * order (the candidate's guarantee).
     */
    private final class Run implements LeadershipListener {
        /** Set once, under this run's monitor, before any call to this listener proceeds. */
        private Leadership leadership;
        /** The context of the term heard elected and not yet revoked; null if none. */
        private volatile WardenLeaderContext current;
        /** The thread telling this listener now, if any: {@link #stop()} from it does not wait. */
        private volatile Thread telling;
        /** The epoch of the last term heard revoked; 0 if none. Guarded by this. */
        private long lastRevoked;
        /** Epoch to wait for, and what to run then, once stopping. Guarded by this. */
        private long stopAfter = -1;
        private final List<Runnable> onStopped = new ArrayList<>(1);

        private synchronized Leadership leadership() {
            return leadership;
        }

        @Override
        public void elected(Term term) {
            WardenLeaderContext context = new WardenLeaderContext(leadership(), role, term);
            current = context;
            tell(() -> {
                LOG.info("leader of role '{}' (epoch {})", role, term.epoch());
                if (candidate != null) {
                    try {
                        candidate.onGranted(context);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        LOG.warn("candidate {} of role '{}' was interrupted in onGranted", candidate, role);
                    }
                }
            }, "onGranted");
            LeaderEventPublisher events = publisher;
            if (events != null) {
                tell(() -> events.publishOnGranted(WardenLeaderInitiator.this, context, role), "OnGrantedEvent");
            }
        }

        @Override
        public void revoked(Term term, Leadership.Revocation why) {
            WardenLeaderContext heard = current;
            WardenLeaderContext context = heard != null && heard.isOf(term) ? heard
                    : new WardenLeaderContext(leadership(), role, term);
            context.revoked(why);
            if (heard == context) {
                current = null;
            }
            try {
                tell(() -> {
                    LOG.info("no longer leader of role '{}' (epoch {}): {}", role, term.epoch(), why);
                    if (candidate != null) {
                        candidate.onRevoked(context);
                    }
                }, "onRevoked");
                LeaderEventPublisher events = publisher;
                if (events != null) {
                    tell(() -> events.publishOnRevoked(WardenLeaderInitiator.this, context, role), "OnRevokedEvent");
                }
            } finally {
                List<Runnable> toRun;
                synchronized (this) {
                    lastRevoked = Math.max(lastRevoked, term.epoch());
                    toRun = stoppedNow();
                }
                toRun.forEach(Runnable::run);
            }
        }

        @Override
        public void failed(Throwable error, Duration retryIn) {
            LeaderEventPublisher events = publisher;
            if (publishFailedEvents && events != null) {
                tell(() -> events.publishOnFailedToAcquire(WardenLeaderInitiator.this,
                        new WardenLeaderContext(null, role, null), role), "OnFailedToAcquireMutexEvent");
            }
        }

        /**
         * Closes the candidate, then runs {@code callback} once the revoked event of the last term it led (or of
         * the term whose elected was heard) was published: at once if none.
         */
        void stop(Runnable callback) {
            Leadership self = leadership();
            // A term that leads now is revoked (CLOSED) by the close; one heard elected and found lost meanwhile is
            // revoked (LOST) by the candidate itself. Either way its revoked call comes, after the close.
            long leading = self.term().map(Term::epoch).orElse(0L);
            self.close();
            WardenLeaderContext heard = current;
            long awaited = Math.max(leading, heard == null ? 0 : heard.getEpoch());
            List<Runnable> toRun;
            synchronized (this) {
                onStopped.add(callback);
                stopAfter = awaited;
                toRun = stoppedNow();
            }
            toRun.forEach(Runnable::run);
            LOG.info("leader initiator of role '{}' stopped", role);
        }

        /** @return the callbacks to run if stopping and the awaited term was heard revoked; taken. Guarded by this. */
        private List<Runnable> stoppedNow() {
            if (stopAfter < 0 || lastRevoked < stopAfter) {
                return List.of();
            }
            List<Runnable> toRun = List.copyOf(onStopped);
            onStopped.clear();
            return toRun;
        }

        /** Runs a call to the application's code; what it throws is logged, never lost, and the rest goes on. */
        private void tell(Runnable call, String what) {
            Thread previous = telling;
            telling = Thread.currentThread();
            try {
                call.run();
            } catch (RuntimeException | Error e) {
                LOG.warn("leader initiator of role '{}': {} failed", role, what, e);
            } finally {
                telling = previous;
            }
        }
    }
}
