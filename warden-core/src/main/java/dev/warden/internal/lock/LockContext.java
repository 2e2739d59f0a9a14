package dev.warden.internal.lock;

import dev.warden.IllegalLockStateException;
import dev.warden.LockConfig;
import dev.warden.LockInfo;
import dev.warden.internal.base.Await;
import dev.warden.internal.base.CallbackPool;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Pending;
import dev.warden.internal.inspect.Inspector;
import dev.warden.internal.lease.Context;
import dev.warden.internal.lease.ThreadHolds;
import dev.warden.internal.lease.Watchdog;
import dev.warden.internal.script.LockKeys;
import dev.warden.internal.script.Scripts;
import dev.warden.internal.wait.Notifier;
import dev.warden.internal.wait.QuietRefresh;
import dev.warden.internal.wire.InFlight;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * What the single locks of one client work with: a {@link RedisLock}, its {@link Acquisition}s and
 * {@link RedisLease}s, and the multi-locks over them. Built once by the client; each component is shared by every lock
 * of the client. Immutable.
 *
 * @param config       the client's configuration
 * @param scripts      the deployment's lock scripts
 * @param notifier     the deployment's wake-ups and grants for waiters
 * @param instanceId   the client's random id, which its releases announce
 * @param cluster      whether the deployment is a cluster (no replica acknowledgements there)
 * @param inFlight     the requests in flight, which closing the client waits for
 * @param watchdog     the renewals of the client's single leases
 * @param quietRefresh the batched tries of quiet waiters
 * @param threadHolds  which thread holds which lease, for re-entry and self-wait checks
 * @param pending      the acquisitions waiting, which closing the client fails
 * @param tokens       draws a new acquisition's token
 * @param inspector    reads a lock's state for {@code inspect()}
 * @param await        how blocking calls wait for an answer
 * @param scheduler    the client's timer thread
 * @param callbacks    the client's callback threads
 * @param events       the client's listener events
 */
public record LockContext(LockConfig config, Scripts scripts, Notifier notifier, String instanceId, boolean cluster,
                   InFlight inFlight, Watchdog<RedisLease> watchdog, QuietRefresh quietRefresh, ThreadHolds threadHolds,
                   Pending<Acquisition> pending, Supplier<String> tokens, Inspector inspector, Await await,
                   ScheduledExecutorService scheduler, CallbackPool callbacks, Events events) implements Context {
    /** Counts an acquisition as waiting until {@link #untrack}; fails it at once if the client is closed. */
    void track(Acquisition acquisition) {
        if (!pending.add(acquisition)) {
            acquisition.result.completeExceptionally(new IllegalLockStateException("client is closed"));
        }
    }

    void untrack(Acquisition acquisition) {
        pending.remove(acquisition);
    }

    /** Reads one lock's state, counted in flight. */
    CompletableFuture<LockInfo> inspect(String name, LockKeys keys) {
        return inspector.lock(name, keys);
    }
}
