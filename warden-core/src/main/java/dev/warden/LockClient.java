package dev.warden;

import java.util.Collection;

import dev.warden.internal.Clients;

/**
 * The entry point: one client per application and Redis deployment, thread-safe and shared. It owns its Redis
 * connections (one for commands, one for pub/sub wake-ups, opened when first needed), one scheduler thread for the
 * watchdog and waits, and a callback thread; {@link #close()} releases held leases and stops them all.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.create(LockConfig.builder()
 *         .redisUri("redis://127.0.0.1:6379/0")
 *         .keyPrefix("lock:")
 *         .build())) {
 *     DistributedLock lock = client.lock("orders:42");
 *     try (Lease lease = lock.acquire()) {
 *         long fence = lease.fencingToken();
 *         // ... work; the watchdog keeps the lease alive ...
 *     }
 * }
 * }</pre>
 */
public interface LockClient extends AutoCloseable {
    /**
     * Connects to Redis and creates a client.
     *
     * @param config the configuration
     * @return a connected client
     * @throws NullPointerException     if {@code config} is null
     * @throws LockConnectionException if Redis cannot be reached
     * @throws LockException           if Redis refuses the connection (for example, wrong credentials)
     */
    static LockClient create(LockConfig config) {
        return Clients.open(config);
    }

    /**
     * Returns the lock of this name.
     *
     * @param name the lock's name: not blank, at most {@value #MAX_NAME_LENGTH} characters; any characters,
     *             braces included
     * @return the lock
     * @throws NullPointerException     if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is blank or too long
     * @throws IllegalStateException    if the client is closed
     */
    DistributedLock lock(String name);

    /**
     * Returns the read-write lock of this name. Its keys differ from those of the lock and the semaphore of the same
     * name, which it does not exclude.
     *
     * @param name the lock's name, as for {@link #lock(String)}
     * @return the read-write lock
     * @throws NullPointerException          if {@code name} is null
     * @throws IllegalArgumentException      if {@code name} is blank or too long
     * @throws IllegalStateException         if the client is closed
     * @throws UnsupportedOperationException if the client is a quorum of independent servers
     */
    DistributedReadWriteLock readWriteLock(String name);

    /**
     * Returns the semaphore of this name with {@code permits} permits. Every client must name the same number: the
     * first use stores it, and acquires that name another fail with a {@link LockException} while the semaphore's
     * state lasts (a day after its last use).
     *
     * @param name    the semaphore's name, as for {@link #lock(String)}
     * @param permits how many permits, from 1 to {@value #MAX_PERMITS}
     * @return the semaphore
     * @throws NullPointerException          if {@code name} is null
     * @throws IllegalArgumentException      if {@code name} is blank or too long, or {@code permits} out of range
     * @throws IllegalStateException         if the client is closed
     * @throws UnsupportedOperationException if the client is a quorum of independent servers
     */
    DistributedSemaphore semaphore(String name, int permits);

    /**
     * Returns a lock over several locks, taken all or nothing: its lease is a {@link MultiLease} that holds every
     * one of them, renewed together, lost as soon as any part is lost, and released together. The locks are taken
     * one after another in the order of their names, and the parts already held are released when one cannot be
     * taken in time, so multi-locks that overlap in any order never deadlock (neither with single locks of those
     * names). Its {@code inspect()} reports it held if any part is held, with the longest lease left, the highest
     * fencing token and the waiters of all parts; {@code forceRelease()} releases every part.
     *
     * @param names the locks' names, as for {@link #lock(String)}; duplicates count once
     * @return the multi-lock
     * @throws NullPointerException     if {@code names} or a name is null
     * @throws IllegalArgumentException if there is no name, or a name is blank or too long
     * @throws IllegalStateException    if the client is closed
     */
    DistributedLock multiLock(Collection<String> names);

    /** @return the configuration this client was created with */
    LockConfig config();

    /**
     * Releases every lease this client still holds (waiting up to the command timeout), fails pending acquires
     * with a {@link LockException}, and stops the client's threads and connections. Idempotent.
     */
    @Override
    void close();

    /** The longest lock name accepted, in characters. */
    int MAX_NAME_LENGTH = 512;

    /** The most permits a semaphore may have. */
    int MAX_PERMITS = 1 << 20;
}
