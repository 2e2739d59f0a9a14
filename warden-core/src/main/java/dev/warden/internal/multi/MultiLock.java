package dev.warden.internal.multi;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockInfo;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Require;
import dev.warden.internal.lease.Context;
import dev.warden.internal.lease.LockBase;
import dev.warden.internal.lease.ThreadHolds;
import dev.warden.internal.lock.RedisLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * Several locks of one client taken all or nothing ({@link LockClient#multiLock}): one after another in the order of
 * their names, which rules out deadlock between multi-locks that overlap in any order, with the parts already held
 * given back when one cannot be taken ({@link MultiAcquisition}). Stateless apart from its
 * {@link java.util.concurrent.locks.Lock} view.
 */
public final class MultiLock extends LockBase {
    private final List<LockBase> parts;
    private final List<String> names;
    private final String name;
    /** The parts, if one script can take them all ({@link #oneScript}), else null; derived once. */
    private final List<RedisLock> together;

    private MultiLock(List<LockBase> parts) {
        this.parts = List.copyOf(parts);
        List<String> partNames = new ArrayList<>(parts.size());
        for (LockBase part : parts) {
            partNames.add(part.name());
        }
        this.names = List.copyOf(partNames);
        this.name = String.join(",", names);
        this.together = together(this.parts);
    }

    /**
     * The multi-lock of a client over these names, in their canonical order.
     *
     * @throws IllegalArgumentException if there is no name, or a name is invalid
     */
    public static MultiLock of(LockClient client, Collection<String> names) {
        Objects.requireNonNull(names, "names");
        names.forEach(each -> Objects.requireNonNull(each, "names contains null"));
        Require.argument(!names.isEmpty(), "names must not be empty: %s", names);
        List<LockBase> parts = new ArrayList<>();
        for (String each : new TreeSet<>(names)) {
            parts.add((LockBase) client.lock(each));
        }
        return new MultiLock(parts);
    }

    List<String> names() {
        return names;
    }

    /**
     * The parts as locks of one client that one script can take together, or null: every part a lock of one server
     * (or of one cluster slot), without replica acknowledgements, not in fair mode (whose waiters are held back for
     * their own client's holder, which a script cannot see).
     */
    List<RedisLock> oneScript() {
        return together;
    }

    private static List<RedisLock> together(List<LockBase> parts) {
        List<RedisLock> locks = new ArrayList<>(parts.size());
        Integer slot = null;
        for (LockBase part : parts) {
            if (!(part instanceof RedisLock lock) || lock.fair() || lock.replicas().required()
                    || lock.context() != ((RedisLock) parts.get(0)).context()) {
                return null;
            }
            if (lock.context().cluster()) {
                int partSlot = io.lettuce.core.cluster.SlotHash.getSlot(lock.keys().lock());
                if (slot != null && slot != partSlot) {
                    return null;
                }
                slot = partSlot;
            }
            locks.add(lock);
        }
        return List.copyOf(locks);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public CompletableFuture<Optional<Lease>> start(long waitNanos, long leaseMillis, boolean renewing,
                                             Events.AcquireWatch watch) {
        return new MultiAcquisition(this, parts, waitNanos, leaseMillis, renewing).start();
    }

    @Override
    public CompletableFuture<Boolean> abandon(Lease lease) {
        return ((RedisMultiLease) lease).abandon();
    }

    /**
     * Gives back, in the background, the leases of the first parts (a lease per part, in the parts' order).
     *
     * @return completes when every release has ended (none fails it): with true if each lease was released
     */
    CompletableFuture<Boolean> giveBack(List<Lease> leases) {
        List<CompletableFuture<Boolean>> each = new ArrayList<>(leases.size());
        for (int i = 0; i < leases.size(); i++) {
            each.add(abandon(i, leases.get(i)).exceptionally(error -> false));
        }
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> each.stream().allMatch(CompletableFuture::join));
    }

    /** Gives back a part's lease that nobody will use, through the part's own lock. */
    public CompletableFuture<Boolean> abandon(int part, Lease lease) {
        return parts.get(part).abandon(lease);
    }

    /** The context of its parts, which are all of one client. */
    @Override
    public Context context() {
        return parts.get(0).context();
    }

    @Override
    public ThreadHolds threadHolds() {
        return parts.get(0).threadHolds();
    }

    @Override
    public List<String> lockNames() {
        return names;
    }

    @Override
    public String describe(String operation) {
        return operation + " of multi-lock " + names;
    }

    /** Every part's state, read at once, as one: see {@link #combine}. */
    @Override
    public CompletableFuture<LockInfo> inspectRequest() {
        List<CompletableFuture<LockInfo>> each = new ArrayList<>(parts.size());
        for (LockBase part : parts) {
            each.add(part.inspectRequest());
        }
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            List<LockInfo> infos = new ArrayList<>(each.size());
            each.forEach(future -> infos.add(future.join()));
            return combine(infos);
        });
    }

    /** Held if any part is, with the longest lease left, the highest fence and all parts' waiters. */
    private LockInfo combine(List<LockInfo> each) {
        boolean held = false;
        Duration left = Duration.ZERO;
        long fence = 0;
        int waiters = 0;
        for (LockInfo info : each) {
            held |= info.held();
            left = info.remainingLease().compareTo(left) > 0 ? info.remainingLease() : left;
            fence = Math.max(fence, info.lastFencingToken());
            waiters += info.waiters();
        }
        return new LockInfo(name, held, left, fence, waiters);
    }

    /** Every part released by force at once; the highest fence removed. */
    @Override
    public CompletableFuture<OptionalLong> forceReleaseRequest() {
        CompletableFuture<OptionalLong> removed = CompletableFuture.completedFuture(OptionalLong.empty());
        for (LockBase part : parts) {
            removed = removed.thenCombine(part.forceReleaseRequest(), MultiLock::highest);
        }
        return removed;
    }

    private static OptionalLong highest(OptionalLong a, OptionalLong b) {
        if (a.isEmpty()) {
            return b;
        }
        return b.isEmpty() ? a : OptionalLong.of(Math.max(a.getAsLong(), b.getAsLong()));
    }

    @Override
    public DistributedLock withReplicaAcks(int replicas, Duration timeout) {
        List<LockBase> acked = new ArrayList<>(parts.size());
        for (LockBase part : parts) {
            acked.add((LockBase) part.withReplicaAcks(replicas, timeout));
        }
        return new MultiLock(acked);
    }

    @Override
    public String toString() {
        return "DistributedLock{multi " + names + "}";
    }
}
