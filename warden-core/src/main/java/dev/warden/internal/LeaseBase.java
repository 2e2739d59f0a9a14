package dev.warden.internal;

import dev.warden.Lease;
import dev.warden.LeaseLostException;
import dev.warden.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of a lease, shared by both kinds: HELD until a release starts (RELEASING), then RELEASED, or LOST from
 * HELD (what the watchdog finds) or RELEASING (what the release finds); never back. Lost-callbacks run once, when
 * the lease is lost. The local deadline is kept here; subclasses move it when a renewal succeeds.
 */
abstract class LeaseBase implements Lease {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseBase.class);
    private static final int HELD = 0;
    private static final int RELEASING = 1;
    private static final int RELEASED = 2;
    private static final int LOST = 3;

    // A field and an updater rather than an AtomicInteger: one object less per held lease.
    private static final AtomicIntegerFieldUpdater<LeaseBase> STATE =
            AtomicIntegerFieldUpdater.newUpdater(LeaseBase.class, "state");

    private volatile int state = HELD;
    volatile long deadline;
    private List<Runnable> callbacks;

    LeaseBase(long deadline) {
        this.deadline = deadline;
    }

    abstract Ticker ticker();

    /** Runs a lost-callback on the client's callback pool. */
    abstract void runCallback(Runnable callback);

    /** Stops renewals and wakes local waiters, once the lease is lost. */
    abstract void afterLoss();

    /** @return the fence issued to this lease so far, without a request; 0 if none was yet */
    abstract long knownFence();

    /**
     * The error for an operation that needs the lease held: {@link LeaseLostException} if it was lost, else an
     * {@link IllegalStateException} (it was released).
     */
    RuntimeException ended(String operation) {
        String message = operation + " of lock '" + lockName() + "' asked after the lease was ";
        return state == LOST ? new LeaseLostException(message + "lost")
                : new IllegalStateException(message + "released");
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

    /** @return whether the lease is held and no release has started */
    boolean active() {
        return state == HELD;
    }

    /** Starts a release: true once, for the caller that moved the lease from HELD. */
    boolean beginRelease() {
        return STATE.compareAndSet(this, HELD, RELEASING);
    }

    /** The release that {@link #beginRelease()} started has ended (or failed). */
    void released() {
        state = RELEASED;
    }

    /** Marks the lease lost (once, unless released already), logs why, and runs the callbacks. */
    void lose(String reason) {
        lose(reason, true);
    }

    /**
     * As {@link #lose(String)}, for what the watchdog finds: nothing once a release has started. A renewal that
     * reaches Redis after the release finds the lock gone because of that release, and a deadline that passes
     * meanwhile did not cost the lock if the release still finds it; the release's own reply tells which.
     */
    void loseUnlessReleasing(String reason) {
        lose(reason, false);
    }

    private void lose(String reason, boolean whileReleasing) {
        int current = state;
        while (current == HELD || (whileReleasing && current == RELEASING)) {
            if (STATE.compareAndSet(this, current, LOST)) {
                LOG.warn("lease of lock '{}' (fence {}) lost: {}", lockName(), knownFence(), reason);
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
}
