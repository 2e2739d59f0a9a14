package dev.warden.internal.quorum;

import dev.warden.DistributedLock;
import dev.warden.Identity;
import dev.warden.Lease;
import dev.warden.LockConnectionException;
import dev.warden.LockException;
import dev.warden.LockInfo;
import dev.warden.internal.base.Errors;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Require;
import dev.warden.internal.inspect.IdentityReader;
import dev.warden.internal.lease.LockBase;
import dev.warden.internal.lease.ThreadHolds;
import dev.warden.internal.script.LockKeys;
import dev.warden.internal.script.Replies;
import dev.warden.internal.wire.InFlight;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/** A named lock over a quorum of independent servers. */
public final class QuorumLock extends LockBase {
    private final QuorumContext context;
    private final String name;
    private final LockKeys keys;

    public QuorumLock(QuorumContext context, String name) {
        this.context = context;
        this.name = name;
        this.keys = LockKeys.of(context.config().keyPrefix(), name);
    }

    @Override
    public QuorumContext context() {
        return context;
    }

    LockKeys keys() {
        return keys;
    }

    @Override
    public String describe(String operation) {
        return operation + " of quorum lock '" + name + "' (key " + keys.lock() + ")";
    }

    /**
     * The failure to report when too many servers failed for a majority to be possible, else null.
     */
    LockException quorumFailure(List<? extends Fanout.Outcome<?>> outcomes, String operation) {
        int failed = Fanout.failures(outcomes);
        int servers = outcomes.size();
        if (!context.quorum().outOfReach(failed)) {
            return null;
        }
        Throwable cause = Fanout.firstFailure(outcomes);
        return new LockConnectionException(describe(operation) + ": " + failed + " of " + servers
                + " servers failed, so no majority of " + context.quorum().majority() + " is possible: "
                + Errors.translate(cause, "first failure").getMessage(), cause);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public CompletableFuture<LockInfo> inspectRequest() {
        return context.inFlight().track(InFlight.Kind.WORK, this::read);
    }

    /** Reads the lock from every server: what a majority says of it. Not counted in flight. */
    public CompletableFuture<LockInfo> read() {
        return Fanout.all(context.quorum().nodes(), server -> server.scripts().inspect(keys)).thenApply(this::info);
    }

    /** What a majority of the servers say of the lock. */
    private LockInfo info(List<Fanout.Outcome<Replies.State>> outcomes) {
        LockException failure = quorumFailure(outcomes, "inspect");
        if (failure != null) {
            throw failure;
        }
        int majority = context.quorum().majority();
        List<Replies.State> states = new ArrayList<>();
        List<Long> remaining = new ArrayList<>();
        List<Long> fences = new ArrayList<>();
        Map<String, Integer> holders = new HashMap<>();
        int waiters = 0;
        for (Fanout.Outcome<Replies.State> outcome : outcomes) {
            if (outcome.ok()) {
                Replies.State state = outcome.value();
                states.add(state);
                if (state.held()) {
                    remaining.add(state.leftMillis());
                    holders.merge(state.token(), 1, Integer::sum);
                }
                fences.add(state.fence());
                waiters = Math.max(waiters, state.waiters());
            }
        }
        boolean held = remaining.size() >= majority;
        // Held for as long as a majority still holds it: the majority-th longest remaining lease.
        Duration left = held ? Duration.ofMillis(majorityth(remaining)) : Duration.ZERO;
        // The fence a majority has reached: the agreed fence of the last grant (a server that answered its
        // acquire late may keep a higher counter of its own).
        fences.sort(Collections.reverseOrder());
        long fence = fences.get(Math.min(majority, fences.size()) - 1);
        // The holder is the token that a majority of the servers hold, held for as long as a majority says.
        Optional<String> holder = Optional.empty();
        Optional<Identity> identity = Optional.empty();
        Optional<Duration> heldFor = Optional.empty();
        List<Long> heldNanos = new ArrayList<>();
        for (Replies.State state : states) {
            if (state.held() && holders.get(state.token()) >= majority) {
                holder = state.holder();
                identity = state.holderOrigin().map(origin -> IdentityReader.identity(origin, Map.of()));
                state.heldFor().ifPresent(d -> heldNanos.add(d.toNanos()));
            }
        }
        if (heldNanos.size() >= majority) {
            heldFor = Optional.of(Duration.ofNanos(majorityth(heldNanos)));
        }
        // A quorum's waiters do not queue: none has an arrival to tell its wait by. A quorum keeps no identity
        // records: its holder is named by the client's tag and the thread's id alone.
        return new LockInfo(name, held, left, fence, waiters, holder, heldFor, Optional.empty(), identity,
                List.of());
    }

    /** The value a majority of the servers reach at least: the majority-th largest; at least a majority given. */
    private long majorityth(List<Long> values) {
        values.sort(Collections.reverseOrder());
        return values.get(context.quorum().majority() - 1);
    }

    @Override
    public CompletableFuture<OptionalLong> forceReleaseRequest() {
        return context.inFlight().track(InFlight.Kind.WORK, () -> Fanout.all(context.quorum().nodes(),
                server -> server.scripts().forceRelease(keys, server.instanceId(), false))).thenApply(outcomes -> {
                    context.quorum().eachConnected(server -> server.notifier().wakeOne(keys, false));
                    return removed(outcomes);
                });
    }

    /** The fence of the holder that a majority removed, or empty if the lock was free. */
    private OptionalLong removed(List<Fanout.Outcome<OptionalLong>> outcomes) {
        LockException failure = quorumFailure(outcomes, "forced release");
        if (failure != null) {
            throw failure;
        }
        long fence = 0;
        boolean removed = false;
        for (Fanout.Outcome<OptionalLong> outcome : outcomes) {
            if (outcome.ok() && outcome.value().isPresent()) {
                removed = true;
                fence = Math.max(fence, outcome.value().getAsLong());
            }
        }
        return removed ? OptionalLong.of(fence) : OptionalLong.empty();
    }

    @Override
    public DistributedLock withReplicaAcks(int replicas, Duration timeout) {
        Require.replicaAcks(replicas, timeout, context.config().commandTimeout());
        if (replicas > 0) {
            throw new UnsupportedOperationException(
                    "replica acknowledgements do not apply to a quorum: its servers are independent masters");
        }
        return this;
    }

    @Override
    public String toString() {
        return "DistributedLock{" + name + ", quorum of " + context.quorum().nodes().size() + "}";
    }

    @Override
    public CompletableFuture<Optional<Lease>> start(long waitNanos, long leaseMillis, boolean renewing,
                                             Events.AcquireWatch watch) {
        return new QuorumAcquisition(this, context(), waitNanos, leaseMillis, renewing, watch).start().result;
    }

    @Override
    public ThreadHolds threadHolds() {
        return context.threadHolds();
    }

    @Override
    public CompletableFuture<Boolean> abandon(Lease lease) {
        return ((QuorumLease) lease).abandon();
    }

}
