package dev.warden.internal.lock;

import dev.warden.LockReplicationException;
import dev.warden.internal.lease.LeaseBase;
import dev.warden.internal.lease.Watchdog;
import dev.warden.internal.script.Scripts;
import dev.warden.internal.wire.Replicas;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Renewals of one deployment's leases: one {@code renew.lua} call per batch, followed by {@code WAIT} where the
 * leases need replica acknowledgements. A renewal that too few replicas acknowledged does not count: a failover
 * then would bring back the older expiry.
 */
public final class RedisRenewals implements Watchdog.Renewals<RedisLease> {
    private final Scripts scripts;
    private final boolean bySlot;

    /** @param bySlot batch only keys of one cluster slot together, since a script may not touch keys of several */
    public RedisRenewals(Scripts scripts, boolean bySlot) {
        this.scripts = scripts;
        this.bySlot = bySlot;
    }

    /** Same replica policy, and same slot in a cluster. */
    @Override
    public Collection<List<RedisLease>> groups(List<RedisLease> due) {
        if (!bySlot && due.stream().allMatch(lease -> lease.replicas == Replicas.NONE)) {
            return List.of(due);
        }
        Map<Object, List<RedisLease>> groups = new HashMap<>();
        for (RedisLease lease : due) {
            Object key = bySlot ? List.of(lease.replicas, SlotHash.getSlot(lease.keys.lock())) : lease.replicas;
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(lease);
        }
        return groups.values();
    }

    @Override
    public CompletableFuture<Watchdog.Verdict[]> renew(List<RedisLease> batch) {
        Replicas replicas = batch.get(0).replicas;
        if (!replicas.required()) {
            return scripts.renew(LeaseBase.renewals(batch)).thenApply(Watchdog.Verdict::of);
        }
        return scripts.renew(LeaseBase.renewals(batch), replicas).thenApply(acked -> {
            if (acked.acks() < replicas.count()) {
                throw new LockReplicationException("renewal acknowledged by " + acked.acks() + " of "
                        + replicas.count() + " replicas", (int) acked.acks(), replicas.count());
            }
            return Watchdog.Verdict.of(acked.reply());
        });
    }

    @Override
    public String lossReason() {
        return "a renewal found the lock expired or owned by another token";
    }
}
