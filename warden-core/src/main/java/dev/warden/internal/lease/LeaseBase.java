package dev.warden.internal.lease;

import dev.warden.IllegalLockStateException;
import dev.warden.Lease;
import dev.warden.LeaseLostException;
import dev.warden.LockListener;
import dev.warden.Ticker;
import dev.warden.internal.base.Errors;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Futures;
import dev.warden.internal.base.Require;
import dev.warden.internal.script.LockKeys;
import dev.warden.internal.script.Renewal;
import dev.warden.internal.wire.InFlight;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of a lease, shared by both kinds: HELD until a release starts (RELEASING), then RELEASED, or LOST from
 * HELD (what the watchdog finds) or RELEASING (what the release finds); never back. Lost-callbacks run once, when
 * the lease is lost.
 *
 * <p>Also the lease's renewal schedule, which only its {@link Watchdog} moves: the local deadline (the lease as
 * granted, from when its request was sent, less the {@link #drift}), when the next renewal is due (a third of the
 * lease after the last one was sent), and whether one is in flight.
 */
public abstract class LeaseBase implements Lease {
    /**
     * Where waiters queue: the longest lease a release grants a renewed waiter, so that a waiter that died after its
     * last registration holds the lock briefly; the watchdog extends it to the full lease.
     */
    public static final long FAIR_GRANT_MILLIS = 5_000;
    private static final Logger LOG = LoggerFactory.getLogger(LeaseBase.class);
    private static final int HELD = 0;
    private static final int RELEASING = 1;
    private static final int RELEASED = 2;
    private static final int LOST = 3;
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    // A field and an updater rather than an AtomicInteger: one object less per held lease.
    private static final AtomicIntegerFieldUpdater<LeaseBase> STATE =
            AtomicIntegerFieldUpdater.newUpdater(LeaseBase.class, "state");

    /**
     * HELD, then RELEASING, RELEASED or LOST: HELD is left only by compare-and-set (STATE), so one caller starts the
     * release or the loss; RELEASING ends as RELEASED, written by that release alone, or as LOST by compare-and-set
     * ({@link #lose(String)}, as when a release finds the lease gone). Read without a lock.
     */
    private volatile int state = HELD;
    /** The lease that renewals set. */
    public final long leaseMillis;
    /** Whether the watchdog renews this lease, or it ends after its fixed lease. */
    public final boolean renewing;
    /**
     * When the lease ends on this machine's clock unless renewed. Written under the {@link Watchdog}'s lock (or
     * before the lease is shared); read without it.
     */
    private volatile long deadline;
    /** When the watchdog renews this lease next. Guarded by the {@link Watchdog}'s lock, which alone calls here. */
    private long nextRenewAt;
    /** Whether a renewal of this lease is in flight. Guarded by the {@link Watchdog}'s lock. */
    private boolean renewalInFlight;
    /** The callbacks to run when the lease is lost ({@link #onLost}); null when none, and once run. Guarded by this. */
    private List<Runnable> callbacks;
    /** When the request that granted the lock (or the local handover to this lease) was sent: for hold times. */
    private final long grantedAt;

    /**
     * A lease granted by a request sent at {@code sentAt}: it started no earlier.
     *
     * @param leaseMillis   the lease that renewals set
     * @param grantedMillis the lease the grant set (shorter than {@code leaseMillis} for a fair grant, which the
     *                      first renewal extends)
     */
    public LeaseBase(long leaseMillis, boolean renewing, long sentAt, long grantedMillis) {
        this.leaseMillis = leaseMillis;
        this.renewing = renewing;
        this.grantedAt = sentAt;
        this.deadline = sentAt + TimeUnit.MILLISECONDS.toNanos(grantedMillis) - drift(grantedMillis);
        this.nextRenewAt = sentAt + TimeUnit.MILLISECONDS.toNanos(grantedMillis) / 3;
    }

    /**
     * A renewed lease that takes the lock over from {@code from} with the same token, at {@code now}: same lease and
     * deadline.
     */
    public LeaseBase(LeaseBase from, long now) {
        this.leaseMillis = from.leaseMillis;
        this.renewing = true;
        this.grantedAt = now;
        this.deadline = from.deadline;
    }

    /**
     * Clock-rate drift between this machine and Redis that a lease allows for: 1 % of the lease plus 2 ms, as
     * Redlock does.
     */
    static long drift(long leaseMillis) {
        return TimeUnit.MILLISECONDS.toNanos(leaseMillis) / 100 + TimeUnit.MILLISECONDS.toNanos(2);
    }

    /**
     * How much is left, at {@code now}, of a lease of {@code leaseMillis} whose request was sent at {@code sentAt},
     * allowing for the drift: a quorum grant counts only while this is positive.
     */
    public static long validity(long leaseMillis, long sentAt, long now) {
        return TimeUnit.MILLISECONDS.toNanos(leaseMillis) - (now - sentAt) - drift(leaseMillis);
    }

    long deadline() {
        return deadline;
    }

    /**
     * Whether at least half of the lease a grant sets is left by the local clock at {@code now}, so that Redis
     * surely still holds this lease unless it lost it: a release grants a renewed waiter at most
     * {@link #FAIR_GRANT_MILLIS} until the watchdog's first renewal, so half of that. A local handover
     * happens only then.
     */
    public boolean halfLeft(long now) {
        long granted = Math.min(leaseNanos(), TimeUnit.MILLISECONDS.toNanos(FAIR_GRANT_MILLIS));
        return deadline - now >= granted / 2;
    }

    /** Derived when needed, as is the drift, rather than kept: a held lease is 16 bytes smaller. */
    long leaseNanos() {
        return TimeUnit.MILLISECONDS.toNanos(leaseMillis);
    }

    /** How long before its due time a lease may join the batch of a lease due earlier. */
    private long window() {
        return leaseNanos() / 12;
    }

    /**
     * The watchdog's tick found this lease: starts a renewal if one is due within the window. Call with the
     * watchdog's lock held.
     *
     * @return whether a renewal starts, which the caller sends
     */
    boolean startRenewal(long now) {
        if (!renewing || renewalInFlight || nextRenewAt - now > window()) {
            return false;
        }
        renewalInFlight = true;
        return true;
    }

    /** When the next renewal is due. Call with the watchdog's lock held. */
    long renewalDue() {
        return nextRenewAt;
    }

    /** The renewal in flight failed, could not be sent, or did not decide: retry soon. Watchdog's lock held. */
    void renewalFailed(long now) {
        renewalInFlight = false;
        nextRenewAt = now + Math.max(MIN_RETRY_NANOS, leaseNanos() / 12);
    }

    /**
     * Takes over the renewal schedule of the lease this one took the lock over from locally. A renewal of that lease
     * in flight extends only that one, so this one renews at once instead. Call with the watchdog's lock held.
     */
    void renewAfter(LeaseBase from, long now) {
        nextRenewAt = from.renewalInFlight ? now : from.nextRenewAt;
    }

    /** The next time the watchdog must look at this lease. Call with the watchdog's lock held (or unshared). */
    long nextEvent() {
        if (!renewing || renewalInFlight) {
            return deadline;
        }
        // Ticks fire when the earliest lease is due and take along every lease due within the window after it.
        return nextRenewAt - deadline < 0 ? nextRenewAt : deadline;
    }

    /**
     * The lock's expiry was set to {@code leaseMillis} by a request sent at {@code sentAt} ({@link #extend}): the
     * deadline moves there, sooner or later. Call with the watchdog's lock held.
     */
    void expiresAfter(long sentAt, long leaseMillis) {
        deadline = sentAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis) - drift(leaseMillis);
    }

    /** A renewal sent at {@code sentAt} succeeded. Call with the watchdog's lock held. */
    void renewed(long sentAt) {
        renewalInFlight = false;
        long next = sentAt + leaseNanos() - drift(leaseMillis);
        if (next - deadline > 0) {
            deadline = next;
        }
        nextRenewAt = sentAt + leaseNanos() / 3;
    }

    /** What the client gave this lease's kind of lock to work with. */
    public abstract Context context();

    /** Names an operation on this lease's lock for error messages. */
    public abstract String describe(String operation);

    /** The client's clock. */
    public Ticker ticker() {
        return context().ticker();
    }

    /** The client's events, for its listener. */
    public Events events() {
        return context().events();
    }

    /** Runs a lost-callback on the client's callback pool. */
    public void runCallback(Runnable callback) {
        context().runCallback(callback);
    }

    /** Stops renewals and wakes local waiters, once the lease is lost. */
    public abstract void afterLoss();

    /** @return the keys of the lease's lock */
    public abstract LockKeys keys();

    /** @return the owner token that the lock key carries while this lease holds it */
    public abstract String token();

    /** @return the fence issued to this lease so far, without a request; 0 if none was yet */
    public abstract long knownFence();

    /**
     * Releases in the background a lease nobody will use (its acquire was cancelled, or the client closes).
     *
     * @return whether it was released; false, or a failure, if it was not (it then expires with its lease)
     */
    public abstract CompletableFuture<Boolean> abandon();

    /**
     * The error for an operation that needs the lease held: {@link LeaseLostException} if it was lost, else an
     * {@link IllegalStateException} (it was released).
     */
    public RuntimeException ended(String operation) {
        String message = operation + " of lock '" + lockName() + "' asked after the lease was ";
        return state == LOST ? new LeaseLostException(message + "lost")
                : new IllegalLockStateException(message + "released");
    }

    @Override
    public boolean isHeld() {
        return state == HELD && ticker().read() - deadline < 0;
    }

    @Override
    public Duration remaining() {
        long left = deadline - ticker().read();
        return state == HELD && left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    @Override
    public void onLost(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        synchronized (this) {
            if (state != LOST) {
                if (callbacks == null) {
                    callbacks = new ArrayList<>(1);
                }
                callbacks.add(callback);
                return;
            }
        }
        callback.run();
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public boolean release() {
        return await(releaseRequest(), "release");
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync() {
        return publish(this::releaseRequest, "release");
    }

    @Override
    public boolean extend(Duration lease) {
        return await(extendRequest(Require.lease(lease, "lease").toMillis()), "extend");
    }

    @Override
    public CompletableFuture<Boolean> extendAsync(Duration lease) {
        long millis = Require.lease(lease, "lease").toMillis();
        return publish(() -> extendRequest(millis), "extend");
    }

    /**
     * Sets the lock's expiry to {@code millis} from now if this lease still holds it, and moves the local deadline
     * there; a lease found gone is lost.
     *
     * @throws IllegalStateException if the watchdog renews this lease, or it was released or lost: at once
     */
    private CompletableFuture<Boolean> extendRequest(long millis) {
        if (renewing) {
            throw new IllegalLockStateException("extend of lock '" + lockName()
                    + "': the watchdog renews this lease; extend applies to leases acquired with a duration");
        }
        if (!active()) {
            throw ended("extend");
        }
        long sentAt = ticker().read();
        return expireRequest(millis, "extend").thenApply(held -> {
            if (!held) {
                // A release that started meanwhile may be what removed it, and its own reply decides.
                loseUnlessReleasing("it was found expired or taken when extended");
                return false;
            }
            moveDeadline(sentAt, millis);
            return true;
        });
    }

    @Override
    public boolean confirm() {
        return await(confirmRequest(), "confirm");
    }

    @Override
    public CompletableFuture<Boolean> confirmAsync() {
        return publish(this::confirmRequest, "confirm");
    }

    /**
     * Asks Redis whether this lease holds its lock, unless it is known not to: released, releasing, lost, or past
     * its local deadline. A lease found gone is lost, unless a release started meanwhile (its own reply decides).
     */
    private CompletableFuture<Boolean> confirmRequest() {
        if (!isHeld()) {
            return CompletableFuture.completedFuture(false);
        }
        return heldRequest().thenApply(held -> {
            if (!held) {
                loseUnlessReleasing("it was found expired or taken when confirmed");
            }
            return held && isHeld();
        });
    }

    /**
     * Whether Redis finds the lock held by this lease, changing nothing.
     *
     * @return completes with the answer, or exceptionally if Redis failed to answer
     */
    public abstract CompletableFuture<Boolean> heldRequest();

    @Override
    public boolean releaseAfter(Duration keep) {
        Objects.requireNonNull(keep, "keep");
        return keep.toMillis() <= 0 ? release() : await(releaseKeepingRequest(keep.toMillis()), "release");
    }

    @Override
    public CompletableFuture<Boolean> releaseAfterAsync(Duration keep) {
        Objects.requireNonNull(keep, "keep");
        long keepMillis = keep.toMillis();
        return keepMillis <= 0 ? releaseAsync() : publish(() -> releaseKeepingRequest(keepMillis), "release");
    }

    /**
     * Releases the lease: through Redis, or by a local handover. Counted in flight by the client before the release
     * starts, so that a closing client either waits for it or has released the lease itself (and this completes
     * with false).
     *
     * @return completes with whether the lease still held the lock, or exceptionally if Redis failed to answer
     */
    public abstract CompletableFuture<Boolean> releaseRequest();

    /**
     * Sets the expiry of the lock's key to {@code millis} from now if it still carries this lease's token.
     *
     * @param operation names the operation in errors
     * @return completes with whether the key carried the token, or exceptionally if Redis failed to answer
     */
    public abstract CompletableFuture<Boolean> expireRequest(long millis, String operation);

    /** Moves the local deadline after {@link #expireRequest} succeeded for a request sent at {@code sentAt}. */
    public abstract void moveDeadline(long sentAt, long millis);

    /** {@link #releaseAfter} with a positive {@code keepMillis}: a release that sets the expiry instead. */
    public abstract CompletableFuture<Boolean> releaseKeepingRequest(long keepMillis);

    /**
     * Waits for the engine's future of an operation, for a blocking method: as long as the client waits for an
     * answer, failing with what the caller is to see ({@link Errors#forCaller}).
     */
    public <T> T await(CompletableFuture<T> future, String operation) {
        return context().await(future, describe(operation));
    }

    /**
     * The future an asynchronous method returns for an operation ({@link Futures#publish}); what {@code request}
     * throws completes it too.
     */
    public <T> CompletableFuture<T> publish(Supplier<CompletableFuture<T>> request, String operation) {
        return Futures.publish(request, context().callbackExecutor(), describe(operation));
    }

    /**
     * What {@link #abandon} does for every kind of lease: unless a release has begun, stops it ({@code stop}) and
     * releases it by token in the background, counted in flight as clean-up. A failure is logged, since nobody is
     * left to tell; the lock then expires at the end of its lease.
     *
     * @param release sends the release by token
     * @param after   runs after the release answered
     * @return completes with false if the release failed, true otherwise (also when another release came first)
     */
    public CompletableFuture<Boolean> abandonWith(InFlight inFlight, Runnable stop,
                                           Supplier<CompletableFuture<Boolean>> release, Runnable after) {
        inFlight.enter(InFlight.Kind.CLEANUP);
        try {
            if (!beginRelease()) {
                return CompletableFuture.completedFuture(true);
            }
            stop.run();
            CompletableFuture<Boolean> done = new CompletableFuture<>();
            inFlight.sendCleanup(lockName(), release, (reply, error) -> {
                released();
                if (error != null) {
                    abandonFailed(error);
                    done.complete(false);
                } else {
                    after.run();
                    done.complete(true);
                }
            }, error -> {
                released();
                abandonFailed(error);
                done.complete(false);
            });
            return done;
        } finally {
            inFlight.exit();
        }
    }

    private void abandonFailed(Throwable error) {
        LOG.warn("could not release abandoned lease of '{}'; it expires after {} ms: {}", lockName(), leaseMillis,
                Errors.unwrap(error).toString());
    }

    /** @return whether the lease is held and no release has started */
    public boolean active() {
        return state == HELD;
    }

    /** Starts a release: true once, for the caller that moved the lease from HELD. */
    public boolean beginRelease() {
        return STATE.compareAndSet(this, HELD, RELEASING);
    }

    /** The release that {@link #beginRelease()} started has ended (or failed). */
    public void released() {
        state = RELEASED;
    }

    /** The release that {@link #beginRelease()} started found the lock still held by this lease, and ended. */
    public void releasedHeld() {
        state = RELEASED;
        events().released(lockName(), grantedAt);
    }

    /**
     * Ends a started release by its request's answer: released if the lease still held the lock, lost with
     * {@code lostBecause} if not. A request that fails, or cannot be sent, ends the release too (the key expires on
     * the server), and the returned future fails with it.
     *
     * @param request sends the request, which answers whether the lease held the lock
     */
    public CompletableFuture<Boolean> finishRelease(Supplier<CompletableFuture<Boolean>> request, String lostBecause) {
        CompletableFuture<Boolean> reply;
        try {
            reply = request.get();
        } catch (RuntimeException e) {
            released();
            throw e;
        }
        return reply.handle((held, error) -> {
            if (error != null) {
                released();
                throw Errors.completion(error);
            }
            if (held) {
                releasedHeld();
            } else {
                lose(lostBecause);
            }
            return held;
        });
    }

    /** Marks the lease lost (once, unless released already), logs why, and runs the callbacks. */
    public void lose(String reason) {
        lose(LockListener.Cause.NOT_IN_REDIS, reason, true);
    }

    /**
     * As {@link #lose(String)}, for what the watchdog finds: nothing once a release has started. A renewal that
     * reaches Redis after the release finds the lock gone because of that release, and a deadline that passes
     * meanwhile did not cost the lock if the release still finds it; the release's own reply tells which.
     */
    public void loseUnlessReleasing(String reason) {
        lose(LockListener.Cause.NOT_IN_REDIS, reason, false);
    }

    /** As {@link #loseUnlessReleasing}, for a deadline that passed on this machine. */
    void ranOut(String reason) {
        lose(LockListener.Cause.RAN_OUT, reason, false);
    }

    private void lose(LockListener.Cause cause, String reason, boolean whileReleasing) {
        int current = state;
        while (current == HELD || (whileReleasing && current == RELEASING)) {
            if (STATE.compareAndSet(this, current, LOST)) {
                LOG.warn("lease of lock '{}' (fence {}) lost: {}", lockName(), knownFence(), reason);
                events().lost(lockName(), grantedAt, cause, reason);
                List<Runnable> toRun;
                synchronized (this) {
                    toRun = callbacks == null ? List.of() : callbacks;
                    callbacks = null;
                }
                for (Runnable callback : toRun) {
                    runCallback(callback);
                }
                afterLoss();
                return;
            }
            current = state;
        }
    }

    /** @return the renewal request of each lease of a batch: its lock's keys, its token and its lease */
    public static List<Renewal<LockKeys>> renewals(List<? extends LeaseBase> batch) {
        List<Renewal<LockKeys>> renewals = new ArrayList<>(batch.size());
        for (LeaseBase lease : batch) {
            renewals.add(new Renewal<>(lease.keys(), lease.token(), lease.leaseMillis));
        }
        return renewals;
    }
}
