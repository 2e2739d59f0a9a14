package dev.warden;

import java.time.Duration;
import java.util.Objects;

/**
 * A semaphore's state, read atomically by {@link DistributedSemaphore#inspect()}; only leases that have not ended
 * count.
 *
 * @param name             the semaphore's name
 * @param permits          how many permits it has (0 if no client has used it since its state expired)
 * @param available        how many are free
 * @param holders          how many leases hold permits
 * @param longestLease     the longest lease left among them, zero with none
 * @param lastFencingToken the fencing token of the latest permit lease, 0 if none is known
 * @param waiters          how many acquires wait
 */
public record SemaphoreInfo(String name, int permits, int available, int holders, Duration longestLease,
                            long lastFencingToken, int waiters) {
    /**
     * Validates the components.
     *
     * @throws NullPointerException if {@code name} or {@code longestLease} is null
     */
    public SemaphoreInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(longestLease, "longestLease");
    }
}
