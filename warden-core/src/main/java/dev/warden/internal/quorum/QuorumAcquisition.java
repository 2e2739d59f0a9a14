package dev.warden.internal.quorum;

import dev.warden.Lease;
import dev.warden.LockException;
import dev.warden.internal.base.Errors;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Futures;
import dev.warden.internal.lease.LeaseBase;
import dev.warden.internal.lease.Phase;
import dev.warden.internal.lease.Standing;
import dev.warden.internal.script.Replies;
import dev.warden.internal.script.Scripts;
import dev.warden.internal.wait.Deployment;
import dev.warden.internal.wait.Notifier;
import dev.warden.internal.wire.InFlight;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquire of a quorum lock: the acquire script on every server in parallel; granted when a majority granted
 * it and time is left of the lease (validity = lease - elapsed since sending - drift); then the fences are raised
 * to the highest of the majority, so that the lease's token exceeds every earlier holder's on every server that
 * granted it. Otherwise every grant is given back, and, when waiting, the acquisition waits for a release on any
 * server (or the holder's TTL, or a short random delay after a split vote) and tries again.
 */
public final class QuorumAcquisition implements Notifier.Waiter {
    private static final Logger LOG = LoggerFactory.getLogger(QuorumAcquisition.class);
    private static final long SPLIT_DELAY_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    public final CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
    private final QuorumLock lock;
    private final QuorumContext context;
    private final long leaseMillis;
    private final boolean renewing;
    private final boolean waits;
    private final boolean forever;
    private final long deadline;
    private final String token;

    /** Where it stands: IDLE, TRYING (a fan-out in flight), GRANTED; changed only by {@link #move}. Guarded by this. */
    private Phase phase = Phase.IDLE;
    /**
     * Whether it tried (later tries are a waiter's, {@code Scripts.Try}), listens on the lock's channel on every
     * connected server ({@link Standing#JOINED}), or left; changed only by {@link #stand}. Guarded by this.
     */
    private Standing standing = Standing.NEW;
    /** Data of {@link Phase#TRYING}: a wake-up came meanwhile, so try again after it. Guarded by this. */
    private boolean woken;
    /**
     * Data of {@link Phase#TRYING}: completed by a wake-up, so that a try that a majority of servers answered, but
     * that waits for a slow or paused server to be decided, ends at once and goes again ({@link #undecided}). Guarded
     * by this.
     */
    private CompletableFuture<Void> heard;
    /** The next try's timer, if scheduled. Guarded by this. */
    private ScheduledFuture<?> timer;
    /** Told when this acquisition starts waiting, for the listener. */
    private final Events.AcquireWatch watch;

    /**
     * @param lock      the lock it acquires: its name and keys
     * @param context   what it uses of its client: the quorum's servers, in-flight requests, watchdog, clock,
     *                  scheduler
     * @param waitNanos how long to wait: 0 for one try, negative for no limit
     * @param watch     told when the acquisition starts waiting
     */
    QuorumAcquisition(QuorumLock lock, QuorumContext context, long waitNanos, long leaseMillis, boolean renewing,
                      Events.AcquireWatch watch) {
        this.watch = watch;
        this.lock = lock;
        this.context = context;
        this.leaseMillis = leaseMillis;
        this.renewing = renewing;
        this.waits = waitNanos != 0;
        this.forever = waitNanos < 0;
        this.deadline = context.ticker().read() + Math.max(waitNanos, 0);
        this.token = context.newToken();
    }

    QuorumAcquisition start() {
        context.track(this);
        Futures.whenDone(result, (value, error) -> {
            context.untrack(this);
            leave(error != null || value.isEmpty());
        }, "the end of an acquisition", lock.name());
        wake();
        return this;
    }

    @Override
    public void wake() {
        Scripts.Try kind;
        CompletableFuture<Void> tryHeard;
        CompletableFuture<Void> recheck;
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            if (phase != Phase.IDLE) {
                woken = true;
                recheck = heard;
                heard = null;
                kind = null;
                tryHeard = null;
            } else {
                move(Phase.TRYING);
                woken = false;
                recheck = null;
                tryHeard = heard = new CompletableFuture<>();
                kind = Scripts.Try.of(waits, standing != Standing.NEW);
                stand(standing.afterTry());
                if (timer != null) {
                    timer.cancel(false);
                    timer = null;
                }
            }
        }
        if (kind == null) {
            if (recheck != null) {
                // Outside the monitor: the fan-out tests its rule, which takes it.
                recheck.complete(null);
            }
            return;
        }
        long sentAt = context.ticker().read();
        // In order (EVAL): a give-back sent before this acquire answered must run after it ({@code acquireInOrder}).
        context.inFlight().send(InFlight.Kind.WORK, () -> Fanout.until(context.quorum().nodes(),
                server -> server.scripts().acquireInOrder(lock.keys(), token, leaseMillis, kind),
                outcomes -> context.quorum().decided(outcomes, Replies.Acquired.class::isInstance)
                        || undecided(outcomes), tryHeard),
                (outcomes, error) -> {
                    if (error != null) {
                        failed(error);
                    } else {
                        onReplies(outcomes, sentAt);
                    }
                }, this::failed);
    }

    /**
     * Whether a try ends although its answers leave it undecided: a release was heard meanwhile (woken), and a
     * majority of the servers answered (granted or held), so that the try waits only for a slow or paused server,
     * which may answer only at its command timeout; the next try goes at once, and finds what the release freed.
     */
    private synchronized boolean undecided(List<Fanout.Outcome<Replies.Acquire>> outcomes) {
        return woken && Fanout.count(outcomes, reply -> true) >= context.quorum().majority();
    }

    /** The one place where the phase changes. Guarded by this. */
    private void move(Phase next) {
        phase = phase.to(next, lock.describe("acquire"));
    }

    /** The one place where the standing changes. Guarded by this. */
    private void stand(Standing next) {
        standing = standing.to(next, lock.describe("acquire"));
    }

    /** A callback that threw, or a fan-out that failed: the acquisition fails with it rather than hang. */
    private void failed(Throwable error) {
        if (result.completeExceptionally(Errors.translate(error, lock.describe("acquire")))) {
            giveBack(null);
        }
    }

    private void onReplies(List<Fanout.Outcome<Replies.Acquire>> outcomes, long sentAt) {
        int granted = 0;
        long fence = 0;
        long holderTtl = Long.MAX_VALUE;
        int held = 0;
        for (Fanout.Outcome<Replies.Acquire> outcome : outcomes) {
            if (!outcome.ok()) {
                continue;
            }
            if (outcome.value() instanceof Replies.Acquired acquired) {
                granted++;
                fence = Math.max(fence, acquired.fence());
            } else {
                held++;
                holderTtl = Math.min(holderTtl, ((Replies.Held) outcome.value()).holderTtlMillis());
            }
        }
        if (granted >= context.quorum().majority() && validity(sentAt) > 0) {
            raise(fence, sentAt);
            return;
        }
        giveBack(outcomes);
        LockException failure = lock.quorumFailure(outcomes, "acquire");
        if (failure != null) {
            result.completeExceptionally(failure);
            return;
        }
        // Held by another owner on enough servers to block a majority: wait for a release or its TTL; otherwise
        // a split vote between contenders: retry after a short random delay so that one of them wins.
        long delay = context.quorum().outOfReach(held)
                ? TimeUnit.MILLISECONDS.toNanos(Math.max(holderTtl, 0)) + TimeUnit.MILLISECONDS.toNanos(1)
                : ThreadLocalRandom.current().nextLong(SPLIT_DELAY_MAX_NANOS);
        retryLater(delay);
    }

    /** Agrees on the highest fence of the majority; granted if a majority still holds it in time. */
    private void raise(long fence, long sentAt) {
        context.inFlight().send(InFlight.Kind.WORK, () -> Fanout.until(context.quorum().nodes(),
                server -> server.scripts().raiseFence(lock.keys(), token, fence),
                outcomes -> context.quorum().decided(outcomes, Boolean::booleanValue)), (outcomes, error) -> {
                    if (error != null) {
                        failed(error);
                        return;
                    }
                    int holding = Fanout.count(outcomes, Boolean::booleanValue);
                    if (holding >= context.quorum().majority() && validity(sentAt) > 0) {
                        synchronized (QuorumAcquisition.this) {
                            move(Phase.GRANTED);
                        }
                        QuorumLease lease = new QuorumLease(lock, context, token, fence, leaseMillis,
                                renewing, sentAt, holding);
                        // Watched before the caller can see it: a caller that releases it at once then takes it
                        // off the watchdog, instead of leaving a released lease there until a tick finds it.
                        lease.start();
                        if (!result.complete(Optional.of(lease))) {
                            lease.abandon();
                        }
                        return;
                    }
                    giveBack(null);
                    LockException failure = lock.quorumFailure(outcomes, "acquire");
                    if (failure != null) {
                        result.completeExceptionally(failure);
                    } else {
                        retryLater(ThreadLocalRandom.current().nextLong(SPLIT_DELAY_MAX_NANOS));
                    }
                }, this::failed);
    }

    /** Time left of a lease whose acquire was sent at {@code sentAt}, less the drift margin. */
    private long validity(long sentAt) {
        return LeaseBase.validity(leaseMillis, sentAt, context.ticker().read());
    }

    /**
     * Releases by token on the servers that granted the lock or did not answer (they may have granted it), or on
     * all when {@code outcomes} is null. Only this acquisition's grants go.
     */
    private void giveBack(List<Fanout.Outcome<Replies.Acquire>> outcomes) {
        for (int i = 0; i < context.quorum().nodes().size(); i++) {
            if (outcomes != null && outcomes.get(i).ok() && outcomes.get(i).value() instanceof Replies.Held) {
                continue;
            }
            Deployment server = context.quorum().nodes().get(i).connected();
            if (server == null) {
                continue;
            }
            // A server that cannot be reached keeps its grant, if any, until the lease expires. In order (EVAL): the
            // next try may follow at once, and a give-back sent again after NOSCRIPT would take its grant back.
            context.inFlight().send(InFlight.Kind.CLEANUP,
                    () -> server.scripts().release(lock.keys(), token, server.instanceId(), true),
                    (released, error) -> {
                        if (error != null) {
                            LOG.debug("give-back of quorum lock '{}' failed; it expires: {}", lock.name(), error);
                        }
                    }, error -> LOG.debug("give-back of quorum lock '{}' failed; it expires", lock.name(), error));
        }
    }

    private void retryLater(long delayNanos) {
        long now = context.ticker().read();
        if (!waits || (!forever && now - deadline >= 0)) {
            result.complete(Optional.empty());
            return;
        }
        boolean join;
        boolean retry = false;
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            move(Phase.IDLE);
            join = standing != Standing.JOINED;
            if (join) {
                stand(Standing.JOINED);
            }
            if (!join) {
                if (woken) {
                    retry = true;
                } else {
                    long delay = forever ? delayNanos : Math.min(delayNanos, deadline - now);
                    timer = context.scheduler().schedule(this::wake, Math.max(delay, 0), TimeUnit.NANOSECONDS);
                }
            }
        }
        if (join) {
            watch.waiting();
            // Subscribe on every server; then try again, since a release before the subscription was not heard:
            // once a majority subscribed (or failed to), not all, since a paused server would hold the try up until
            // its command timeout, while a majority of servers can grant the lock without it. A release on a server
            // that subscribes later is heard there. A server that cannot subscribe leaves the wait to the timers.
            List<CompletableFuture<?>> joins = new java.util.ArrayList<>();
            context.quorum().eachConnected(server -> joins.add(
                    server.notifier().join(lock.keys().channel(), this).handle((ok, e) -> null)));
            int needed = Math.min(joins.size(), context.quorum().majority());
            AtomicInteger subscribed = new AtomicInteger();
            if (needed == 0) {
                wake();
            }
            for (CompletableFuture<?> subscription : joins) {
                // wake() fails the acquisition itself if it throws; this stage only carries on.
                Futures.whenDone(subscription, (ok, error) -> {
                    if (subscribed.incrementAndGet() == needed) {
                        wake();
                    }
                }, "the try after subscribing", lock.name());
            }
        } else if (retry) {
            wake();
        }
    }

    private void leave(boolean passWake) {
        boolean wasJoined;
        synchronized (this) {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
            wasJoined = standing == Standing.JOINED;
            stand(Standing.LEFT);
        }
        if (wasJoined) {
            context.quorum().eachConnected(server -> server.notifier().leave(lock.keys().channel(), this, passWake));
        }
    }

    @Override
    public boolean reserve() {
        // Direct handover is a single-server optimisation; a quorum grant always goes through every server.
        return false;
    }

    @Override
    public void unreserve() {
        wake();
    }

    @Override
    public String token() {
        return token;
    }

    @Override
    public long leaseMillis() {
        return leaseMillis;
    }
}
