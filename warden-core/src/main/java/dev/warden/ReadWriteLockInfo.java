package dev.warden;

import java.time.Duration;
import java.util.Objects;

/**
 * A read-write lock's state, read atomically by {@link DistributedReadWriteLock#inspect()}; only leases that have
 * not ended count.
 *
 * @param name             the lock's name
 * @param readers          how many read leases hold it
 * @param writeLocked      whether a writer holds it
 * @param longestLease     the longest lease left among the holders, zero with none
 * @param lastFencingToken the last writer's fencing token, 0 if none is known
 * @param waiters          how many acquires wait, readers and writers
 */
public record ReadWriteLockInfo(String name, int readers, boolean writeLocked, Duration longestLease,
                                long lastFencingToken, int waiters) {
    /**
     * Validates the components.
     *
     * @throws NullPointerException if {@code name} or {@code longestLease} is null
     */
    public ReadWriteLockInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(longestLease, "longestLease");
    }
}
