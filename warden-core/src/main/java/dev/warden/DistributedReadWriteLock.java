package dev.warden;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A named read-write lock in Redis: readers share it, a writer excludes readers and other writers. Obtain one from
 * {@link LockClient#readWriteLock(String)}; it is cheap and thread-safe. Each half is a {@link DistributedLock}, so
 * code written against a lock works with either.
 *
 * <p>Waiting is one queue in arrival order: a release grants the lock, in the same script, to the next writer or to
 * every reader queued before the next writer, and a reader that comes while a writer waits queues behind it, so a
 * stream of readers never starves a writer. Each reader has its own lease, renewed by the watchdog, and its own
 * lost-lease signal.
 *
 * <p>Fencing tokens: a writer's token is higher than every token issued on this name before it, across releases,
 * expiries and a Redis restart that lost the data, as a lock's are. A reader's token is the last writer's (0 if no
 * writer's is known), so it is never above the next writer's: a store that rejects a read whose token is below the
 * highest write token it has accepted refuses a reader that started before that write.
 *
 * <p>A thread that holds the write lock may take the read lock (a downgrade: it is granted beside the write lock,
 * ahead of the queue) and then release the write lock. A thread that holds the read lock and asks for the write
 * lock fails at once with an {@link IllegalStateException}: it would wait for itself. Both are decided per thread
 * and client; leases passed to other threads do not count.
 */
public interface DistributedReadWriteLock {
    /** @return the lock's name */
    String name();

    /** @return the shared half: many readers at once, no writer meanwhile */
    DistributedLock readLock();

    /**
     * The exclusive half. Its acquire methods throw {@link IllegalStateException} when the calling thread holds the
     * read lock of this name in this client.
     *
     * @return the exclusive half
     */
    DistributedLock writeLock();

    /**
     * Reads the lock's state atomically: its readers, its writer and its waiters.
     *
     * @return its state
     * @throws LockException if Redis fails
     */
    ReadWriteLockInfo inspect();

    /**
     * {@link #inspect()} without blocking the calling thread.
     *
     * @return completes with its state on a thread of the client, or exceptionally with a {@link LockException}
     */
    CompletableFuture<ReadWriteLockInfo> inspectAsync();

    /**
     * Removes every holder, readers and the writer alike, whoever they are, for administration: their leases are
     * lost at their next renewal, release or {@link Lease#confirm()}. The fencing counter is kept, and waiters are
     * granted what the removed holders held. Each half alone: {@code readLock().forceRelease()},
     * {@code writeLock().forceRelease()}.
     *
     * @return the highest fencing token of the holders removed (a reader's is the last writer's, 0 if none is
     *         known), or empty if nobody held it
     * @throws LockException         if Redis fails
     * @throws IllegalStateException if the client is closed
     */
    OptionalLong forceRelease();

    /**
     * {@link #forceRelease()} without blocking the calling thread.
     *
     * @return completes as {@link #forceRelease()} returns, on a thread of the client, or exceptionally with what
     *         it throws
     */
    CompletableFuture<OptionalLong> forceReleaseAsync();
}
