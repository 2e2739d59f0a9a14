package dev.warden;

import java.util.Collection;

import dev.warden.internal.client.Clients;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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
     * Returns the semaphore of this name with {@code permits} permits. The number is stored with the semaphore;
     * while it is in use (a lease holds permits or an acquire waits), a client that names another number fails with a
     * {@link SemaphorePermitsException}, and a semaphore nobody uses takes the number of the next client that
     * acquires. {@link DistributedSemaphore#resize} changes it while it is in use.
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
     * Returns a lock over several locks, taken all or nothing ({@link DistributedMultiLock}): its acquires return a
     * {@link MultiLease} that holds every one of them. The locks are taken one after another in the order of their
     * names, and the parts already held are released when one cannot be taken in time, so multi-locks that overlap
     * in any order never deadlock (neither with single locks of those names).
     *
     * @param names the locks' names, as for {@link #lock(String)}; duplicates count once
     * @return the multi-lock
     * @throws NullPointerException     if {@code names} or a name is null
     * @throws IllegalArgumentException if there is no name, or a name is blank or too long
     * @throws IllegalStateException    if the client is closed
     */
    DistributedMultiLock multiLock(Collection<String> names);

    /**
     * Joins the election {@code name} as a candidate with no listener: ask {@link Leadership#isLeader},
     * {@link Leadership#awaitLeadership} or {@link Leadership#leadershipAsync}. The election is a lock of that name
     * whose lease is the client's default lease, renewed while leading.
     *
     * @throws IllegalArgumentException  if {@code name} is not a valid lock name
     * @throws IllegalLockStateException if the client is closed
     */
    default Leadership leadership(String name) {
        return leadership(name, null);
    }

    /**
     * Joins the election {@code name} as a candidate; {@code listener} (or null for none) is told of each term.
     *
     * @throws IllegalArgumentException  if {@code name} is not a valid lock name
     * @throws IllegalLockStateException if the client is closed
     */
    Leadership leadership(String name, LeadershipListener listener);

    /** @return the configuration this client was created with */
    LockConfig config();

    /**
     * Lists the locks under this client's key prefix that are held or have waiters, whose names match
     * {@code pattern}: each as {@link DistributedLock#inspect()} reads it. A free lock is not listed, also where its
     * key is still kept as the fencing counter; nor are read-write locks and semaphores
     * ({@link #readWriteLocks(String, int)}, {@link #semaphores(String, int)}).
     *
     * <p>The pattern is a glob over lock names, not keys: {@code *} matches any run of characters, {@code ?} one
     * character, {@code [abc]}, {@code [a-z]} and {@code [^abc]} one character of (or not of) a set, and {@code \}
     * makes the next character plain; {@code "*"} lists every lock. Braces and percent signs are plain characters in
     * it, as in names: {@code "job-{7}*"} matches the lock {@code job-{7}a}, whose key has its name's braces escaped
     * ({@code %7B}, {@code %7D}, and {@code %25} for {@code %}) so that a name cannot change the key's hash tag.
     *
     * <p>Redis is read with {@code SCAN} (on a cluster, every master's keys), 500 keys per call and never
     * {@code KEYS}, and one short script per lock found, so the listing does not block Redis for long however many
     * locks it has; it takes longer than one command may (seconds for 100,000 locks), and the call waits as long
     * as Redis keeps answering. It is no snapshot: each lock is read atomically, but the locks one after
     * another, so a lock held for the whole listing is in it, one taken or released meanwhile may or may not be.
     * On a quorum, a lock is listed as held when a majority of the servers hold it, as {@code inspect()} says;
     * the listing goes on without as many servers as a majority can do without.
     *
     * @param pattern a glob over lock names, such as {@code "*"} or {@code "orders:*"}
     * @param limit   the most locks to return, 1 or more: the bound of the list and of the listing's memory. A
     *                list of {@code limit} locks may leave out others that match; which ones is not specified
     * @return the locks found, sorted by name; immutable
     * @throws NullPointerException     if {@code pattern} is null
     * @throws IllegalArgumentException if {@code pattern} is not a glob (an unclosed {@code [}, a trailing
     *                                  {@code \}) or is empty or longer than 4,096 characters, or {@code limit} is
     *                                  not positive
     * @throws IllegalStateException    if the client is closed
     * @throws LockException            if Redis fails (on a quorum, more servers than a majority can do without),
     *                                  or the thread is interrupted (the interrupt flag is then set again)
     * @throws LockTimeoutException     if Redis stops answering for twice the command timeout and a second
     */
    List<LockInfo> locks(String pattern, int limit);

    /**
     * {@link #locks(String, int)} with a limit of {@value #DEFAULT_LOCKS_LIMIT} locks.
     *
     * @param pattern a glob over lock names; {@code "*"} for all
     * @return the locks found, sorted by name; immutable
     * @throws NullPointerException     if {@code pattern} is null
     * @throws IllegalArgumentException if {@code pattern} is not a glob
     * @throws IllegalStateException    if the client is closed
     * @throws LockException            if Redis fails
     */
    default List<LockInfo> locks(String pattern) {
        return locks(pattern, DEFAULT_LOCKS_LIMIT);
    }

    /**
     * {@link #locks(String)} without blocking the calling thread: {@link #locksAsync(String, int)} with a limit of
     * {@value #DEFAULT_LOCKS_LIMIT} locks.
     *
     * @param pattern a glob over lock names; {@code "*"} for all
     * @return completes as {@link #locksAsync(String, int)} does
     * @throws NullPointerException     if {@code pattern} is null
     * @throws IllegalArgumentException if {@code pattern} is not a glob
     */
    default CompletableFuture<List<LockInfo>> locksAsync(String pattern) {
        return locksAsync(pattern, DEFAULT_LOCKS_LIMIT);
    }

    /**
     * {@link #locks(String, int)} without blocking the calling thread.
     *
     * @param pattern a glob over lock names; {@code "*"} for all
     * @param limit   the most locks to return, 1 or more
     * @return completes with the locks found, sorted by name and immutable, on a thread of the client (never one
     *         of its connections' I/O threads); or exceptionally with a {@link LockException} if Redis fails, or an
     *         {@link IllegalStateException} if the client is closed
     * @throws NullPointerException     if {@code pattern} is null
     * @throws IllegalArgumentException if {@code pattern} is not a glob, or {@code limit} is not positive
     */
    CompletableFuture<List<LockInfo>> locksAsync(String pattern, int limit);

    /**
     * Lists the read-write locks under this client's key prefix that are held (by a writer or readers) or have
     * waiters, whose names match {@code pattern}: each as {@link DistributedReadWriteLock#inspect()} reads it. It
     * reads Redis as {@link #locks(String, int)} does, and matches names the same way; a quorum has no read-write
     * locks, and lists none.
     *
     * @param pattern a glob over lock names, as for {@link #locks(String, int)}
     * @param limit   the most locks to return, 1 or more
     * @return the read-write locks found, sorted by name; immutable
     * @throws NullPointerException     if {@code pattern} is null
     * @throws IllegalArgumentException if {@code pattern} is not a glob, or {@code limit} is not positive
     * @throws IllegalStateException    if the client is closed
     * @throws LockException            if Redis fails, or the thread is interrupted (the flag is then set again)
     * @throws LockTimeoutException     if Redis stops answering for twice the command timeout and a second
     */
    List<ReadWriteLockInfo> readWriteLocks(String pattern, int limit);

    /**
     * {@link #readWriteLocks(String, int)} without blocking the calling thread.
     *
     * @param pattern a glob over lock names; {@code "*"} for all
     * @param limit   the most locks to return, 1 or more
     * @return completes with the read-write locks found, sorted by name and immutable, on a thread of the client;
     *         or exceptionally with a {@link LockException} if Redis fails, or an {@link IllegalStateException} if
     *         the client is closed
     * @throws NullPointerException     if {@code pattern} is null
     * @throws IllegalArgumentException if {@code pattern} is not a glob, or {@code limit} is not positive
     */
    CompletableFuture<List<ReadWriteLockInfo>> readWriteLocksAsync(String pattern, int limit);

    /**
     * Lists the semaphores under this client's key prefix of which permits are held or that have waiters, whose
     * names match {@code pattern}: each as {@link DistributedSemaphore#inspect()} reads it. It reads Redis as
     * {@link #locks(String, int)} does, and matches names the same way; a quorum has no semaphores, and lists none.
     *
     * @param pattern a glob over semaphore names, as for {@link #locks(String, int)}
     * @param limit   the most semaphores to return, 1 or more
     * @return the semaphores found, sorted by name; immutable
     * @throws NullPointerException     if {@code pattern} is null
     * @throws IllegalArgumentException if {@code pattern} is not a glob, or {@code limit} is not positive
     * @throws IllegalStateException    if the client is closed
     * @throws LockException            if Redis fails, or the thread is interrupted (the flag is then set again)
     * @throws LockTimeoutException     if Redis stops answering for twice the command timeout and a second
     */
    List<SemaphoreInfo> semaphores(String pattern, int limit);

    /**
     * {@link #semaphores(String, int)} without blocking the calling thread.
     *
     * @param pattern a glob over semaphore names; {@code "*"} for all
     * @param limit   the most semaphores to return, 1 or more
     * @return completes with the semaphores found, sorted by name and immutable, on a thread of the client; or
     *         exceptionally with a {@link LockException} if Redis fails, or an {@link IllegalStateException} if the
     *         client is closed
     * @throws NullPointerException     if {@code pattern} is null
     * @throws IllegalArgumentException if {@code pattern} is not a glob, or {@code limit} is not positive
     */
    CompletableFuture<List<SemaphoreInfo>> semaphoresAsync(String pattern, int limit);

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

    /** The most locks {@link #locks(String)} returns. */
    int DEFAULT_LOCKS_LIMIT = 10_000;
}
