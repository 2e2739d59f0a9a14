package dev.warden;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A read-write lock's state, read atomically by {@link DistributedReadWriteLock#inspect()}, and for each read-write
 * lock that {@link LockClient#readWriteLocks(String, int)} lists; only leases that have not ended count.
 *
 * @param name             the lock's name
 * @param readers          how many read leases hold it
 * @param writeLocked      whether a writer holds it
 * @param longestLease     the longest lease left among the holders, zero with none
 * @param lastFencingToken the last writer's fencing token, 0 if none is known
 * @param waiters          how many acquires wait, readers and writers
 * @param longestWait      how long the longest-waiting live waiter has waited, by the server's clock; empty with
 *                         none
 * @param writer           who holds the write lock: client, host, process and thread ({@link Identity}); empty
 *                         when no writer holds it
 * @param reading          who holds read leases: the first {@value LockInfo#WAITING_SHOWN} readers, the leases that
 *                         end soonest first; a writer that downgraded is among them
 * @param waiting          who waits, longest first: the first {@value LockInfo#WAITING_SHOWN} live waiters
 */
public record ReadWriteLockInfo(String name, int readers, boolean writeLocked, Duration longestLease,
                                long lastFencingToken, int waiters, Optional<Duration> longestWait,
                                Optional<Identity> writer, List<Identity> reading, List<Identity> waiting) {
    /**
     * Validates the components.
     *
     * @throws NullPointerException if a component is null, or a list holds null
     */
    public ReadWriteLockInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(longestLease, "longestLease");
        Objects.requireNonNull(longestWait, "longestWait");
        Objects.requireNonNull(writer, "writer");
        reading = List.copyOf(reading);
        waiting = List.copyOf(waiting);
    }

    /**
     * A state without identities: no holder or waiter named, no wait known.
     *
     * @param name             the lock's name
     * @param readers          how many read leases hold it
     * @param writeLocked      whether a writer holds it
     * @param longestLease     the longest lease left among the holders, zero with none
     * @param lastFencingToken the last writer's fencing token, 0 if none is known
     * @param waiters          how many acquires wait, readers and writers
     * @throws NullPointerException if {@code name} or {@code longestLease} is null
     */
    public ReadWriteLockInfo(String name, int readers, boolean writeLocked, Duration longestLease,
                             long lastFencingToken, int waiters) {
        this(name, readers, writeLocked, longestLease, lastFencingToken, waiters, Optional.empty(), Optional.empty(),
                List.of(), List.of());
    }
}
