package dev.warden;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A snapshot of one lock's state in Redis, read atomically by {@link DistributedLock#inspect()}, and for each lock
 * that {@link LockClient#locks(String, int)} lists.
 *
 * @param name             the lock's name
 * @param held             whether someone holds the lock
 * @param remainingLease   how long the holder's lease still runs on the server; {@link Duration#ZERO} when free
 * @param lastFencingToken the last fencing token issued for this name, or 0 if none is known
 * @param waiters          how many acquisitions, in any client, are registered as waiting for the lock
 * @param holder           who holds the lock: the first 8 characters of the holder's random token, which tell
 *                         holders apart (the same while one lease, or the leases of one client handing the lock
 *                         over locally, keep it) without being enough to release the lock in the holder's name;
 *                         empty when free
 * @param heldFor          how long the holder has held the lock by the server's clock, counted from when its
 *                         fencing token was issued (fencing tokens are the server's time in µs): from the acquire
 *                         where the name has a fencing counter, and always in fair mode and on a quorum; otherwise
 *                         from the holder's first {@link Lease#fencingToken()} call, so less than the whole hold.
 *                         Empty when free, while the holder has no fencing token, or when the token is ahead of the
 *                         server's clock
 * @param longestWait      how long the longest-waiting queued waiter has waited, by the server's clock; empty when
 *                         none is queued (also where waiters do not queue: with replica acknowledgements, and on a
 *                         quorum, whose waiters are only counted)
 * @param holderIdentity   who holds the lock: client, host, process and thread ({@link Identity}); empty when free.
 *                         On a quorum, which keeps no identity records, only the client's tag and the thread's id
 * @param waiting          who waits, longest first: the first {@value #WAITING_SHOWN} live waiters, queued ones in
 *                         queue order, then those that do not queue (replica acknowledgements); empty on a quorum
 */
public record LockInfo(String name, boolean held, Duration remainingLease, long lastFencingToken, int waiters,
                       Optional<String> holder, Optional<Duration> heldFor, Optional<Duration> longestWait,
                       Optional<Identity> holderIdentity, List<Identity> waiting) {
    /** How many waiters {@link #waiting()} names at most. */
    public static final int WAITING_SHOWN = 10;

    /**
     * Validates the components.
     *
     * @throws NullPointerException if a component is null, or {@code waiting} holds null
     */
    public LockInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(remainingLease, "remainingLease");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(heldFor, "heldFor");
        Objects.requireNonNull(longestWait, "longestWait");
        Objects.requireNonNull(holderIdentity, "holderIdentity");
        waiting = List.copyOf(waiting);
    }

    /**
     * A snapshot without identities: no holder identity known, no waiter named.
     *
     * @param name             the lock's name
     * @param held             whether someone holds the lock
     * @param remainingLease   how long the holder's lease still runs; {@link Duration#ZERO} when free
     * @param lastFencingToken the last fencing token issued for this name, or 0 if none is known
     * @param waiters          how many acquisitions are registered as waiting for the lock
     * @param holder           the start of the holder's token; empty when free
     * @param heldFor          how long the holder has held the lock, where known
     * @param longestWait      how long the longest-waiting queued waiter has waited, where known
     * @throws NullPointerException if a component is null
     */
    public LockInfo(String name, boolean held, Duration remainingLease, long lastFencingToken, int waiters,
                    Optional<String> holder, Optional<Duration> heldFor, Optional<Duration> longestWait) {
        this(name, held, remainingLease, lastFencingToken, waiters, holder, heldFor, longestWait, Optional.empty(),
                List.of());
    }

    /**
     * A snapshot without the holder's details: no holder, hold time or wait time known.
     *
     * @param name             the lock's name
     * @param held             whether someone holds the lock
     * @param remainingLease   how long the holder's lease still runs; {@link Duration#ZERO} when free
     * @param lastFencingToken the last fencing token issued for this name, or 0 if none is known
     * @param waiters          how many acquisitions are registered as waiting for the lock
     * @throws NullPointerException if {@code name} or {@code remainingLease} is null
     */
    public LockInfo(String name, boolean held, Duration remainingLease, long lastFencingToken, int waiters) {
        this(name, held, remainingLease, lastFencingToken, waiters, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), List.of());
    }
}
