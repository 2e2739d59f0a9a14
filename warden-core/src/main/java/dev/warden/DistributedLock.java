package dev.warden;

import java.time.Duration;

/**
 * A named lock in Redis, shared by every client that uses the same name and key prefix. Obtain one from
 * {@link LockClient#lock(String)}; it is cheap and thread-safe, and holds no state in Redis until acquired.
 *
 * <p>Ownership is the {@link Lease} an acquire returns, not a thread: any thread may release it. Leases acquired
 * without an explicit duration last {@link LockConfig#defaultLease()} and are renewed by the watchdog until
 * released; leases with an explicit duration are not renewed.
 *
 * <p>Not reentrant: a thread's blocking acquire that would wait for a lock it holds is refused at once (see
 * {@link Acquirable}); {@link #asLock()} is reentrant per thread.
 *
 * <p>Waiting is event-driven: a waiter subscribes to the lock's channel and retries when the holder releases, or
 * when the holder's lease runs out, whichever comes first. Every method throws {@link LockException} when Redis
 * fails; not getting the lock is never reported as an exception by the methods returning {@code Optional}.
 */
public interface DistributedLock extends Acquirable<Lease> {
    /**
     * Returns this lock with another replica policy: every grant and renewal through the returned lock must be
     * acknowledged by {@code replicas} replicas within {@code timeout} (Redis {@code WAIT}), or the grant is undone
     * and fails with {@link LockReplicationException}, and the renewal does not count. 0 turns it off. The
     * returned lock has the same name and keys; leases of both exclude each other as usual.
     *
     * @param replicas how many replicas must acknowledge, 0 or more
     * @param timeout  how long to wait for them; shorter than the client's command timeout
     * @return the lock with that policy
     * @throws NullPointerException     if {@code timeout} is null
     * @throws IllegalArgumentException if {@code replicas} is negative, or {@code timeout} is not positive or not
     *                                  shorter than the command timeout
     * @throws UnsupportedOperationException if the client's topology cannot count acknowledgements (a quorum,
     *                                  whose servers are independent masters), or the client is in fair mode
     */
    DistributedLock withReplicaAcks(int replicas, Duration timeout);
}
