package dev.warden;

import java.time.Duration;
import java.util.Objects;

/**
 * A snapshot of one lock's state in Redis, read atomically by {@link DistributedLock#inspect()}.
 *
 * @param name             the lock's name
 * @param held             whether someone holds the lock
 * @param remainingLease   how long the holder's lease still runs on the server; {@link Duration#ZERO} when free
 * @param lastFencingToken the last fencing token issued for this name, or 0 if none is known
 * @param waiters          how many acquisitions, in any client, are registered as waiting for the lock
 */
public record LockInfo(String name, boolean held, Duration remainingLease, long lastFencingToken, int waiters) {
    /**
     * Validates the components.
     *
     * @throws NullPointerException if {@code name} or {@code remainingLease} is null
     */
    public LockInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(remainingLease, "remainingLease");
    }
}
