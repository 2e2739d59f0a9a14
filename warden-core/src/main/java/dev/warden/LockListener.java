package dev.warden;

import java.time.Duration;
import java.util.Objects;

/**
 * Learns what happens to a client's locks, for metrics, traces and logs: set one with
 * {@link LockConfig.Builder#listener}. Every method has an empty default, so a listener overrides only what it
 * uses.
 *
 * <p>Events reach the listener on one thread of the client's own ({@code warden-<client>-events}), in the order
 * they happened, shortly after they happened; never on the thread that acquires or releases. So a listener that is
 * slow, blocks or throws cannot slow, stall or break a lock: an exception it throws is logged and the next event
 * delivered; if it falls more than 8,192 events behind, later events are dropped (and counted in a warning in the
 * log) until it catches up. A client without a listener builds no events at all.
 *
 * <p>Durations are measured on the client's {@link Ticker}.
 */
public interface LockListener {
    /**
     * A call to acquire ended: it returned a lease, returned empty (its wait ran out, or its caller gave up: an
     * interrupt or a cancelled future), or failed.
     */
    default void onAcquire(Acquire event) {
    }

    /** A caller's first try found the lock held and it now waits for a release; an {@link #onAcquire} follows. */
    default void onWaiting(String lock) {
    }

    /** A lease was released while it still held the lock ({@link Lease#release()} returned {@code true}). */
    default void onRelease(Release event) {
    }

    /** A lease was lost: its lock may have another holder ({@link Lease#onLost}). */
    default void onLost(Loss event) {
    }

    /** The watchdog's request to renew a batch of leases was answered, or failed (it retries until the deadline). */
    default void onRenewal(Renewal event) {
    }

    /**
     * A {@link Leadership} candidate of this client was elected: it leads {@code term.election()} from now, by a
     * lease of that lock whose fencing token is {@code term.epoch()}. Comes after the {@link #onAcquire} of that
     * lease, and before the term's {@link #onRevoked}.
     *
     * @param term the election and the epoch of the term that began
     */
    default void onElected(Term term) {
    }

    /**
     * A term of a {@link Leadership} candidate of this client ended: it no longer leads {@code term.election()}. Comes
     * after the term's {@link #onElected}; for a lost lease ({@link Leadership.Revocation#LOST}), after its
     * {@link #onLost}. A deposed leader can learn of its loss after another candidate of the same client was elected,
     * so for one election another candidate's {@code onElected} may come before this term's {@code onRevoked}.
     *
     * @param term the election and the epoch of the term that ended
     * @param why  why it ended
     */
    default void onRevoked(Term term, Leadership.Revocation why) {
    }

    /** How a call to acquire ended. */
    enum Outcome {
        /** A lease was returned. */
        ACQUIRED,
        /** Empty was returned: the lock was held until the wait ran out, or the caller stopped waiting. */
        NOT_ACQUIRED,
        /** The call failed with a {@link LockException}. */
        FAILED
    }

    /** Why a lease was lost. */
    enum Cause {
        /** Its deadline passed on this machine: no renewal succeeded in time, or a fixed lease ran out. */
        RAN_OUT,
        /**
         * Redis no longer had it: a renewal, release, extension or fencing-token request found the key gone or
         * held by another token (expired on the server, force-released, or lost with the server's data).
         */
        NOT_IN_REDIS
    }

    /**
     * An acquire call that ended.
     *
     * @param lock    the lock's name
     * @param outcome how it ended
     * @param waited  from the call until it ended
     * @param queued  whether it waited for a release ({@link #onWaiting} was called for it)
     * @param error   the failure, for {@link Outcome#FAILED}; otherwise null
     */
    record Acquire(String lock, Outcome outcome, Duration waited, boolean queued, LockException error) {
        /** @throws NullPointerException if a field other than {@code error} is null */
        public Acquire {
            Objects.requireNonNull(lock, "lock");
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(waited, "waited");
        }
    }

    /**
     * A release of a lease that still held its lock.
     *
     * @param lock the lock's name
     * @param held from when the acquire that granted the lease was sent until the release
     */
    record Release(String lock, Duration held) {
        /** @throws NullPointerException if a field is null */
        public Release {
            Objects.requireNonNull(lock, "lock");
            Objects.requireNonNull(held, "held");
        }
    }

    /**
     * A lost lease.
     *
     * @param lock   the lock's name
     * @param held   from when the acquire that granted the lease was sent until it was found lost
     * @param cause  why, as a value to count by
     * @param detail why, in words (as logged)
     */
    record Loss(String lock, Duration held, Cause cause, String detail) {
        /** @throws NullPointerException if a field is null */
        public Loss {
            Objects.requireNonNull(lock, "lock");
            Objects.requireNonNull(held, "held");
            Objects.requireNonNull(cause, "cause");
            Objects.requireNonNull(detail, "detail");
        }
    }

    /**
     * One renewal request of the watchdog, for a batch of leases.
     *
     * @param leases    how many leases it renewed (or tried to)
     * @param late      how long after its due time the most overdue lease of the batch was sent; zero if none was
     *                  late (leases due a little later join an earlier batch)
     * @param roundTrip from the request until its answer or failure
     * @param error     the failure, if the request failed (it is retried); otherwise null
     */
    record Renewal(int leases, Duration late, Duration roundTrip, LockException error) {
        /** @throws NullPointerException if {@code late} or {@code roundTrip} is null */
        public Renewal {
            Objects.requireNonNull(late, "late");
            Objects.requireNonNull(roundTrip, "roundTrip");
        }
    }
}
