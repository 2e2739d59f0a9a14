package dev.warden.internal.quorum;

import dev.warden.IllegalLockStateException;
import dev.warden.LockConfig;
import dev.warden.internal.base.Await;
import dev.warden.internal.base.CallbackPool;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Pending;
import dev.warden.internal.lease.Context;
import dev.warden.internal.lease.ThreadHolds;
import dev.warden.internal.lease.Watchdog;
import dev.warden.internal.wire.InFlight;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * What the locks of a quorum client work with: a {@link QuorumLock}, its {@link QuorumAcquisition}s and
 * {@link QuorumLease}s. Built once by the client. Immutable.
 *
 * @param config      the client's configuration
 * @param quorum      the servers and their majority
 * @param inFlight    the requests in flight, which closing the client waits for: each fan-out counts as one
 * @param watchdog    the renewals of the client's leases, one request per server and batch
 * @param threadHolds which thread holds which lease, for re-entry and self-wait checks
 * @param pending     the acquisitions waiting, which closing the client fails
 * @param tokens      draws a new acquisition's token
 * @param await       how blocking calls wait for an answer; never spins (the slowest of a majority answers last)
 * @param scheduler   the client's timer thread
 * @param callbacks   the client's callback threads
 * @param events      the client's listener events
 */
public record QuorumContext(LockConfig config, Quorum quorum, InFlight inFlight, Watchdog<QuorumLease> watchdog,
                     ThreadHolds threadHolds, Pending<QuorumAcquisition> pending, Supplier<String> tokens,
                     Await await, ScheduledExecutorService scheduler, CallbackPool callbacks, Events events)
        implements Context {
    /** Counts an acquisition as waiting until {@link #untrack}; fails it at once if the client is closed. */
    void track(QuorumAcquisition acquisition) {
        if (!pending.add(acquisition)) {
            acquisition.result.completeExceptionally(new IllegalLockStateException("client is closed"));
        }
    }

    void untrack(QuorumAcquisition acquisition) {
        pending.remove(acquisition);
    }
}
