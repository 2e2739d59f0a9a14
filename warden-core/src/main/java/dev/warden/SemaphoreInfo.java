package dev.warden;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A semaphore's state, read atomically by {@link DistributedSemaphore#inspect()}, and for each semaphore that
 * {@link LockClient#semaphores(String, int)} lists; only leases that have not ended count.
 *
 * @param name             the semaphore's name
 * @param permits          how many permits it has (0 if no client has used it since its state expired)
 * @param available        how many are free
 * @param holders          how many leases hold permits
 * @param longestLease     the longest lease left among them, zero with none
 * @param lastFencingToken the fencing token of the latest permit lease, 0 if none is known
 * @param waiters          how many acquires wait
 * @param longestWait      how long the longest-waiting live waiter has waited, by the server's clock; empty with
 *                         none
 * @param holding          who holds permits: client, host, process and thread ({@link Identity}) of the first
 *                         {@value LockInfo#WAITING_SHOWN} leases, those holding every permit first, then the leases
 *                         that end soonest
 * @param waiting          who waits, longest first: the first {@value LockInfo#WAITING_SHOWN} live waiters
 */
public record SemaphoreInfo(String name, int permits, int available, int holders, Duration longestLease,
                            long lastFencingToken, int waiters, Optional<Duration> longestWait,
                            List<Identity> holding, List<Identity> waiting) {
    /**
     * Validates the components.
     *
     * @throws NullPointerException if a component is null, or a list holds null
     */
    public SemaphoreInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(longestLease, "longestLease");
        Objects.requireNonNull(longestWait, "longestWait");
        holding = List.copyOf(holding);
        waiting = List.copyOf(waiting);
    }

    /**
     * A state without identities: no holder or waiter named, no wait known.
     *
     * @param name             the semaphore's name
     * @param permits          how many permits it has
     * @param available        how many are free
     * @param holders          how many leases hold permits
     * @param longestLease     the longest lease left among them, zero with none
     * @param lastFencingToken the fencing token of the latest permit lease, 0 if none is known
     * @param waiters          how many acquires wait
     * @throws NullPointerException if {@code name} or {@code longestLease} is null
     */
    public SemaphoreInfo(String name, int permits, int available, int holders, Duration longestLease,
                         long lastFencingToken, int waiters) {
        this(name, permits, available, holders, longestLease, lastFencingToken, waiters, Optional.empty(), List.of(),
                List.of());
    }
}
