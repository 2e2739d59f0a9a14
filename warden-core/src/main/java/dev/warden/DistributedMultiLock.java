package dev.warden;

import java.time.Duration;
import java.util.List;

/**
 * Several locks of one client taken all or nothing ({@link LockClient#multiLock}): its acquires return a
 * {@link MultiLease} that holds every one of them, renewed together, lost as soon as any part is lost, and released
 * together. The locks are taken one after another in the order of their names, and the parts already held are
 * released before an acquire that cannot take one in time returns "not acquired", so multi-locks that overlap in
 * any order never deadlock (neither with single locks of those names). Its {@link #name()} is the sorted names
 * joined with commas.
 *
 * <p>{@link #inspect()} reports it held if any part is held, with the longest lease left, the highest fencing token
 * and the waiters of all parts; {@link #forceRelease()} releases every part. A thread that holds one of its locks by
 * a blocking acquire is refused a blocking acquire of the multi-lock that would wait ({@link Acquirable}).
 */
public interface DistributedMultiLock extends Acquirable<MultiLease> {
    /** @return the names of the locks, sorted, without duplicates */
    List<String> names();

    /**
     * Returns this multi-lock with another replica policy for every part, as
     * {@link DistributedLock#withReplicaAcks(int, Duration)} does for one lock.
     *
     * @param replicas how many replicas must acknowledge, 0 or more
     * @param timeout  how long to wait for them; shorter than the client's command timeout
     * @return the multi-lock with that policy
     * @throws NullPointerException          if {@code timeout} is null
     * @throws IllegalArgumentException      if {@code replicas} is negative, or {@code timeout} is not positive or
     *                                       not shorter than the command timeout
     * @throws UnsupportedOperationException if the client's topology cannot count acknowledgements, or the client
     *                                       is in fair mode
     */
    DistributedMultiLock withReplicaAcks(int replicas, Duration timeout);
}
