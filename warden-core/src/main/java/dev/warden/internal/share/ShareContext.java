package dev.warden.internal.share;

import dev.warden.Identity;
import dev.warden.IllegalLockStateException;
import dev.warden.LockConfig;
import dev.warden.internal.base.Await;
import dev.warden.internal.base.CallbackPool;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Pending;
import dev.warden.internal.inspect.Inspector;
import dev.warden.internal.lease.Context;
import dev.warden.internal.lease.Watchdog;
import dev.warden.internal.script.Replies;
import dev.warden.internal.script.ShareKeys;
import dev.warden.internal.script.ShareScripts;
import dev.warden.internal.script.Tokens;
import dev.warden.internal.wait.Notifier;
import dev.warden.internal.wire.InFlight;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * What the shared locks of one client (read-write locks and semaphores) work with: a {@link ShareLock}, its
 * {@link ShareAcquisition}s and {@link ShareLease}s. Built once by the client; each component is shared by every
 * shared lock of the client. Immutable.
 *
 * @param config     the client's configuration
 * @param scripts    the deployment's scripts of shared locks
 * @param notifier   the deployment's wake-ups and grants for waiters
 * @param instanceId the client's random id, which its releases announce
 * @param inFlight   the requests in flight, which closing the client waits for
 * @param watchdog   the renewals of the client's shares
 * @param threadShares which thread holds which share, for re-entry and self-wait checks
 * @param waiters    the client's waiting acquisitions of shared locks, for local handovers
 * @param pending    the acquisitions waiting, which closing the client fails
 * @param tokens     draws a new acquisition's token
 * @param inspector  reads a lock's state for {@code inspect()}
 * @param await      how blocking calls wait for an answer
 * @param scheduler  the client's timer thread
 * @param callbacks  the client's callback threads
 * @param events     the client's listener events
 */
public record ShareContext(LockConfig config, ShareScripts scripts, Notifier notifier, String instanceId,
                    InFlight inFlight, Watchdog<ShareLease> watchdog, ThreadShares threadShares, ShareWaiters waiters,
                    Pending<ShareAcquisition> pending, Supplier<String> tokens, Inspector inspector, Await await,
                    ScheduledExecutorService scheduler, CallbackPool callbacks, Events events) implements Context {
    /** Counts an acquisition as waiting until {@link #untrack}; fails it at once if the client is closed. */
    void track(ShareAcquisition acquisition) {
        if (!pending.add(acquisition)) {
            acquisition.result.completeExceptionally(new IllegalLockStateException("client is closed"));
        }
    }

    void untrack(ShareAcquisition acquisition) {
        pending.remove(acquisition);
    }

    /** Reads a shared lock's state, counted in flight; {@code build} makes the caller's view of it. */
    <T> CompletableFuture<T> inspect(ShareKeys keys,
                                     BiFunction<Replies.ShareState, Map<Tokens.Origin, Identity>, T> build) {
        return inspector.share(keys, build);
    }
}
