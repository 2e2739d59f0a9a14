package dev.warden;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A named semaphore in Redis with leased permits, shared by every client that uses the same name, key prefix and
 * number of permits. Obtain one from {@link LockClient#semaphore(String, int)}; it is cheap and thread-safe.
 *
 * <p>A successful acquire returns one {@link Lease} for the permits it took: renewed by the watchdog (or fixed,
 * with an explicit lease), released by {@link Lease#close()}, lost loudly like a lock's lease, and with a fencing
 * token that is higher than that of every permit lease granted before it. A holder that dies holds its permits
 * until its lease ends, never longer. Waiters queue in arrival order and a release lends the permits on in the same
 * script: a request for many permits is not passed by later requests for fewer.
 *
 * <p>The number of permits is stored with the semaphore. While it is in use (a live lease holds permits, or a live
 * acquire waits) a client that names another number fails with a {@link SemaphorePermitsException} saying both; a
 * semaphore nobody uses takes the number of the next client that acquires. {@link #resize} changes the number while
 * leases are held: holders above a lowered number keep their permits until they release them, and nothing more is
 * lent until the permits in use are below it. Every method that talks to Redis throws {@link LockException} when Redis
 * fails; not getting the permits is never an exception for the methods returning {@link Optional}.
 */
public interface DistributedSemaphore {
    /** @return the semaphore's name */
    String name();

    /** @return how many permits it has */
    int permits();

    /**
     * Tries once to take {@code permits} permits, without waiting, with a renewed lease.
     *
     * @param permits how many, from 1 to {@link #permits()}
     * @return the lease, or empty if they are not free (or earlier waiters come first)
     * @throws IllegalArgumentException if {@code permits} is out of range
     * @throws LockException            if Redis fails
     */
    Optional<Lease> tryAcquire(int permits);

    /**
     * Takes {@code permits} permits with a renewed lease, waiting up to {@code wait} for them.
     *
     * @param permits how many, from 1 to {@link #permits()}
     * @param wait    how long to wait; zero means a single try
     * @return the lease, or empty if they were not free within {@code wait}
     * @throws InterruptedException     if the thread is interrupted while waiting; permits granted at that moment
     *                                  are released
     * @throws IllegalArgumentException if {@code permits} is out of range or {@code wait} negative
     * @throws NullPointerException     if {@code wait} is null
     * @throws LockException            if Redis fails
     */
    Optional<Lease> tryAcquire(int permits, Duration wait) throws InterruptedException;

    /**
     * Takes {@code permits} permits with a fixed lease that is not renewed, waiting up to {@code wait} for them.
     *
     * @param permits how many, from 1 to {@link #permits()}
     * @param wait    how long to wait; zero means a single try
     * @param lease   how long the permits are held unless released earlier
     * @return the lease, or empty if they were not free within {@code wait}
     * @throws InterruptedException     if the thread is interrupted while waiting
     * @throws IllegalArgumentException if {@code permits} is out of range, {@code wait} negative or {@code lease}
     *                                  not positive
     * @throws NullPointerException     if an argument is null
     * @throws LockException            if Redis fails
     */
    Optional<Lease> tryAcquire(int permits, Duration wait, Duration lease) throws InterruptedException;

    /**
     * Takes {@code permits} permits with a renewed lease, waiting as long as it takes.
     *
     * @param permits how many, from 1 to {@link #permits()}
     * @return the lease
     * @throws InterruptedException     if the thread is interrupted while waiting
     * @throws IllegalArgumentException if {@code permits} is out of range
     * @throws LockException            if Redis fails
     */
    Lease acquire(int permits) throws InterruptedException;

    /**
     * Takes {@code permits} permits with a renewed lease without blocking a thread while waiting.
     *
     * @param permits how many, from 1 to {@link #permits()}
     * @param wait    how long to wait
     * @return completes with the lease; exceptionally with {@link java.util.concurrent.TimeoutException} if they were
     *         not free within {@code wait}, or a {@link LockException} if Redis fails. Cancelling it stops waiting.
     * @throws IllegalArgumentException if {@code permits} is out of range or {@code wait} negative
     * @throws NullPointerException     if {@code wait} is null
     */
    CompletableFuture<Lease> acquireAsync(int permits, Duration wait);

    /**
     * Like {@link #acquireAsync(int, Duration)}, but "not free within the wait" completes with an empty value.
     *
     * @param permits how many, from 1 to {@link #permits()}
     * @param wait    how long to wait
     * @return completes with the lease or empty; exceptionally with a {@link LockException} if Redis fails
     * @throws IllegalArgumentException if {@code permits} is out of range or {@code wait} negative
     * @throws NullPointerException     if {@code wait} is null
     */
    CompletableFuture<Optional<Lease>> tryAcquireAsync(int permits, Duration wait);

    /**
     * {@link #tryAcquire(int)} without blocking the calling thread: one try, with a renewed lease.
     *
     * @param permits how many, from 1 to {@link #permits()}
     * @return completes with the lease or empty; exceptionally with a {@link LockException} if Redis fails
     * @throws IllegalArgumentException if {@code permits} is out of range
     */
    CompletableFuture<Optional<Lease>> tryAcquireAsync(int permits);

    /**
     * {@link #tryAcquire(int, Duration, Duration)} without blocking a thread while waiting: a fixed lease that is
     * not renewed.
     *
     * @param permits how many, from 1 to {@link #permits()}
     * @param wait    how long to wait; zero means a single try
     * @param lease   how long the permits are held unless released earlier
     * @return completes with the lease, or empty if they were not free within {@code wait}; exceptionally with a
     *         {@link LockException} if Redis fails. Cancelling it stops waiting.
     * @throws IllegalArgumentException if {@code permits} is out of range, {@code wait} negative or {@code lease}
     *                                  not positive
     * @throws NullPointerException     if {@code wait} or {@code lease} is null
     */
    CompletableFuture<Optional<Lease>> tryAcquireAsync(int permits, Duration wait, Duration lease);

    /**
     * {@link #acquire(int)} without blocking a thread while waiting: as long as it takes, with a renewed lease.
     *
     * @param permits how many, from 1 to {@link #permits()}
     * @return completes with the lease; exceptionally with a {@link LockException} if Redis fails. Cancelling it
     *         stops waiting.
     * @throws IllegalArgumentException if {@code permits} is out of range
     */
    CompletableFuture<Lease> acquireAsync(int permits);

    /**
     * Takes one permit with a renewed lease, waiting as long as it takes: {@code acquire(1)}.
     *
     * @return the lease
     * @throws InterruptedException if the thread is interrupted while waiting
     * @throws LockException        if Redis fails
     */
    Lease acquire() throws InterruptedException;

    /**
     * {@link #acquire()} without blocking a thread while waiting: {@code acquireAsync(1)}.
     *
     * @return completes with the lease; exceptionally with a {@link LockException} if Redis fails
     */
    CompletableFuture<Lease> acquireAsync();

    /**
     * Asks Redis how many permits are free now.
     *
     * @return the permits no live lease holds, 0 while holders hold more than a lowered number; {@link #permits()}
     *         for a semaphore nobody uses
     * @throws SemaphorePermitsException if the semaphore is in use with another number of permits
     * @throws LockException             if Redis fails
     */
    int available();

    /**
     * {@link #available()} without blocking the calling thread.
     *
     * @return completes with the free permits on a thread of the client, or exceptionally with a
     *         {@link SemaphorePermitsException} or a {@link LockException} as {@link #available()} throws them
     */
    CompletableFuture<Integer> availableAsync();

    /**
     * Changes the semaphore's number of permits in Redis, for every client, while leases may be held: a raise lends
     * the new permits to the waiters at once; after a lowering, holders keep their permits (also those above the new
     * number) until they release them or their leases end, and no permit is lent, by Redis or by a handover inside
     * a client, until the permits in use are below the new number. Clients that name the old number fail with
     * {@link SemaphorePermitsException} at their next call while the semaphore is in use, and their waiters at their
     * next try; give them the new number. To take permits back from holders at once, {@link #forceRelease()}.
     *
     * @param permits the new number, from 1 to {@value LockClient#MAX_PERMITS}
     * @return this semaphore with the new number, to use from now on
     * @throws IllegalArgumentException  if {@code permits} is out of range
     * @throws SemaphorePermitsException if the semaphore is in use with a number other than {@link #permits()}
     *                                   (another client resized it first): nothing changed
     * @throws LockException             if Redis fails
     */
    DistributedSemaphore resize(int permits);

    /**
     * {@link #resize(int)} without blocking the calling thread.
     *
     * @param permits the new number, from 1 to {@value LockClient#MAX_PERMITS}
     * @return completes with this semaphore with the new number on a thread of the client, or exceptionally as
     *         {@link #resize(int)} throws
     * @throws IllegalArgumentException if {@code permits} is out of range
     */
    CompletableFuture<DistributedSemaphore> resizeAsync(int permits);

    /**
     * Reads the semaphore's state atomically.
     *
     * @return its state
     * @throws LockException if Redis fails
     */
    SemaphoreInfo inspect();

    /**
     * {@link #inspect()} without blocking the calling thread.
     *
     * @return completes with its state on a thread of the client, or exceptionally with a {@link LockException}
     */
    CompletableFuture<SemaphoreInfo> inspectAsync();

    /**
     * Ends every permit lease whoever holds it, for administration: the holders are not told at once, but their
     * leases are lost at their next renewal or release. Waiters get the permits.
     *
     * @return the highest fencing token of the leases removed, or empty if none was held
     * @throws LockException if Redis fails
     */
    OptionalLong forceRelease();

    /**
     * {@link #forceRelease()} without blocking the calling thread.
     *
     * @return completes as {@link #forceRelease()} returns, on a thread of the client, or exceptionally with a
     *         {@link LockException} if Redis fails
     */
    CompletableFuture<OptionalLong> forceReleaseAsync();

    /**
     * Returns this semaphore with another replica policy, as {@link DistributedLock#withReplicaAcks} does for a lock:
     * every grant and renewal must be acknowledged by {@code replicas} replicas within {@code timeout}, or the grant
     * is undone and fails with {@link LockReplicationException}. A grant made by another client's release costs the
     * waiter one more request, which confirms it with {@code WAIT}.
     *
     * @param replicas how many replicas must acknowledge, 0 or more
     * @param timeout  how long to wait for them; shorter than the client's command timeout
     * @return the semaphore with that policy
     * @throws NullPointerException          if {@code timeout} is null
     * @throws IllegalArgumentException      if {@code replicas} is negative, or {@code timeout} is not positive or
     *                                       not shorter than the command timeout
     * @throws UnsupportedOperationException on a cluster
     */
    DistributedSemaphore withReplicaAcks(int replicas, Duration timeout);
}
