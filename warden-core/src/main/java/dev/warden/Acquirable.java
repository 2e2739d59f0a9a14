package dev.warden;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;

/**
 * The calls a lock and a multi-lock share: acquire (blocking and asynchronous, renewed or fixed leases), inspect,
 * administer, and the {@link Lock} view. {@code L} is the lease an acquire returns: a {@link Lease} for a
 * {@link DistributedLock}, a {@link MultiLease} for a {@link DistributedMultiLock}.
 *
 * <p>Not reentrant. A thread that holds the lock by a lease it acquired with a blocking method (any but the
 * {@code *Async} ones), neither released nor lost, and asks for it again through the same client (or for a
 * multi-lock with it as a part) would wait for itself: a blocking acquire that would wait then throws
 * {@link IllegalStateException} at once instead, and a single try ({@code tryAcquire()}, or a zero wait) finds the
 * lock held and returns empty. The lease counts as that thread's even if handed to another thread; acquire from the
 * thread it was handed to, or asynchronously, where a later holder is meant to wait for it. Leases acquired
 * asynchronously count for no thread. For reentrancy per thread, use {@link #asLock()}.
 *
 * @param <L> the lease an acquire returns
 */
public interface Acquirable<L extends Lease> {
    /** @return the lock's name */
    String name();

    /**
     * Tries once to acquire the lock, without waiting, with a renewed lease.
     *
     * @return the lease, or empty if someone else holds the lock
     * @throws LockException if Redis fails, or the thread is interrupted while waiting for Redis's answer (the
     *                       interrupt flag is then set again)
     * @throws IllegalStateException if the client is closed
     */
    Optional<L> tryAcquire();

    /**
     * Acquires the lock with a renewed lease, waiting up to {@code wait} for it.
     *
     * @param wait how long to wait; zero means a single try
     * @return the lease, or empty if the lock was not free within {@code wait}
     * @throws InterruptedException     if the thread is interrupted while waiting; a lock granted at that moment is
     *                                  released
     * @throws IllegalArgumentException if {@code wait} is negative
     * @throws NullPointerException     if {@code wait} is null
     * @throws LockException            if Redis fails
     * @throws IllegalStateException    if {@code wait} is positive and the calling thread holds this lock already
     *                                  (see the class comment), or the client is closed
     */
    Optional<L> tryAcquire(Duration wait) throws InterruptedException;

    /**
     * Acquires the lock with a fixed lease that is not renewed, waiting up to {@code wait} for it.
     *
     * @param wait  how long to wait; zero means a single try
     * @param lease how long the lock is held unless released earlier
     * @return the lease, or empty if the lock was not free within {@code wait}
     * @throws InterruptedException     if the thread is interrupted while waiting
     * @throws IllegalArgumentException if {@code wait} is negative or {@code lease} is not positive
     * @throws NullPointerException     if an argument is null
     * @throws LockException            if Redis fails
     * @throws IllegalStateException    if {@code wait} is positive and the calling thread holds this lock already
     *                                  (see the class comment), or the client is closed
     */
    Optional<L> tryAcquire(Duration wait, Duration lease) throws InterruptedException;

    /**
     * Acquires the lock with a renewed lease, waiting as long as it takes.
     *
     * @return the lease
     * @throws InterruptedException if the thread is interrupted while waiting; a lock granted at that moment is
     *                              released
     * @throws LockException        if Redis fails
     * @throws IllegalStateException if the calling thread holds this lock already, or the client is closed
     */
    L acquire() throws InterruptedException;

    /**
     * Acquires the lock with a renewed lease without blocking a thread while waiting.
     *
     * @param wait how long to wait
     * @return a future completed with the lease; completed exceptionally with
     *         {@link java.util.concurrent.TimeoutException} if the lock was not free within {@code wait}, or with a
     *         {@link LockException} if Redis fails. Cancelling it stops waiting and releases a lock granted meanwhile.
     * @throws IllegalArgumentException if {@code wait} is negative
     * @throws NullPointerException     if {@code wait} is null
     */
    CompletableFuture<L> acquireAsync(Duration wait);

    /**
     * Like {@link #acquireAsync(Duration)}, but "not acquired within the wait" completes with an empty value.
     *
     * @param wait how long to wait
     * @return a future completed with the lease or empty; exceptionally with a {@link LockException} if Redis fails
     * @throws IllegalArgumentException if {@code wait} is negative
     * @throws NullPointerException     if {@code wait} is null
     */
    CompletableFuture<Optional<L>> tryAcquireAsync(Duration wait);

    /**
     * {@link #tryAcquire()} without blocking the calling thread: one try, with a renewed lease.
     *
     * @return a future completed with the lease or empty; exceptionally with a {@link LockException} if Redis
     *         fails, or an {@link IllegalStateException} if the client is closed
     */
    CompletableFuture<Optional<L>> tryAcquireAsync();

    /**
     * {@link #tryAcquire(Duration, Duration)} without blocking a thread while waiting: a fixed lease that is not
     * renewed.
     *
     * @param wait  how long to wait; zero means a single try
     * @param lease how long the lock is held unless released earlier
     * @return a future completed with the lease, or empty if the lock was not free within {@code wait};
     *         exceptionally with a {@link LockException} if Redis fails, or an {@link IllegalStateException} if the
     *         client is closed. Cancelling it stops waiting and releases a lock granted meanwhile.
     * @throws IllegalArgumentException if {@code wait} is negative or {@code lease} is not positive
     * @throws NullPointerException     if an argument is null
     */
    CompletableFuture<Optional<L>> tryAcquireAsync(Duration wait, Duration lease);

    /**
     * {@link #acquire()} without blocking a thread while waiting: a renewed lease, waiting as long as it takes.
     *
     * @return a future completed with the lease; exceptionally with a {@link LockException} if Redis fails, or an
     *         {@link IllegalStateException} if the client is closed. Cancelling it stops waiting and releases a lock
     *         granted meanwhile.
     */
    CompletableFuture<L> acquireAsync();

    /**
     * Asks Redis whether anyone holds the lock now.
     *
     * @return {@code true} if held
     * @throws LockException if Redis fails
     */
    boolean isLocked();

    /**
     * Reads the lock's state atomically.
     *
     * @return the lock's state
     * @throws LockException if Redis fails
     */
    LockInfo inspect();

    /**
     * {@link #inspect()} without blocking the calling thread.
     *
     * @return completes with the lock's state, on a thread of the client (never one of its connections' I/O
     *         threads), or exceptionally with a {@link LockException} if Redis fails, or an
     *         {@link IllegalStateException} if the client is closed
     */
    CompletableFuture<LockInfo> inspectAsync();

    /**
     * {@link #isLocked()} without blocking the calling thread.
     *
     * @return completes as {@link #inspectAsync()} does, with whether the lock is held
     */
    default CompletableFuture<Boolean> isLockedAsync() {
        return inspectAsync().thenApply(LockInfo::held);
    }

    /**
     * Releases the lock whoever holds it, for administration: the holder is not told at once, but its lease is
     * lost at its next renewal or release. The fencing counter is kept, and waiters are woken.
     *
     * @return the fencing token of the holder that was removed (issued now if it had never asked for one: every
     *         later holder's is higher), or empty if the lock was free. For a read-write lock's read half, the
     *         highest token of the readers removed, which is the last writer's, 0 if no writer's is known
     * @throws LockException if Redis fails
     */
    OptionalLong forceRelease();

    /**
     * {@link #forceRelease()} without blocking the calling thread.
     *
     * @return completes as {@link #forceRelease()} returns, on a thread of the client, or exceptionally with a
     *         {@link LockException} if Redis fails, or an {@link IllegalStateException} if the client is closed
     */
    CompletableFuture<OptionalLong> forceReleaseAsync();

    /**
     * Returns a {@link Lock} view: reentrant per thread, with the hold count kept locally over one renewed lease.
     * The count never says "held" on its own: every reentrant {@code lock()}, {@code lockInterruptibly()} and
     * {@code tryLock} asks Redis whether the lease still holds the lock ({@link Lease#confirm()}, one round trip)
     * and throws {@link LeaseLostException} if it was lost (expired, force-released, or lost with the server's
     * data), leaving the count as it was. {@code unlock()} by a thread that does not hold it throws
     * {@link IllegalMonitorStateException}; each earlier acquire still needs its {@code unlock()}, and the last one
     * throws {@link LeaseLostException} if the lease was lost meanwhile. Conditions are not supported. Reentrancy is
     * per view: every call returns the same view for this object. A {@link LockException} (Redis failed to answer)
     * leaves the count as it was.
     *
     * @return the view
     */
    Lock asLock();
}
