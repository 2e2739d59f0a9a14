package dev.warden.internal.share;

import dev.warden.LockReplicationException;
import dev.warden.internal.lease.Watchdog;
import dev.warden.internal.script.Renewal;
import dev.warden.internal.script.ShareKeys;
import dev.warden.internal.script.ShareScripts;
import dev.warden.internal.wire.Replicas;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Renewals of one deployment's shares (semaphore permits, read and write leases): one script call per batch. */
public final class ShareRenewals implements Watchdog.Renewals<ShareLease> {
    private final ShareScripts scripts;
    private final boolean bySlot;

    /** @param bySlot batch only shares of one cluster slot together, since a script may not touch several */
    public ShareRenewals(ShareScripts scripts, boolean bySlot) {
        this.scripts = scripts;
        this.bySlot = bySlot;
    }

    /** Same replica policy, and same slot in a cluster. */
    @Override
    public Collection<List<ShareLease>> groups(List<ShareLease> due) {
        if (!bySlot && due.stream().allMatch(lease -> !lease.replicas().required())) {
            return List.of(due);
        }
        Map<Object, List<ShareLease>> groups = new HashMap<>();
        for (ShareLease lease : due) {
            Object key = bySlot ? List.of(lease.replicas(), SlotHash.getSlot(lease.shareKeys().state()))
                    : lease.replicas();
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(lease);
        }
        return groups.values();
    }

    /** A renewal too few replicas acknowledged does not count: a failover then would bring back the older end. */
    @Override
    public CompletableFuture<Watchdog.Verdict[]> renew(List<ShareLease> batch) {
        Replicas replicas = batch.get(0).replicas();
        List<Renewal<ShareKeys>> renewals = new ArrayList<>(batch.size());
        for (ShareLease lease : batch) {
            renewals.add(new Renewal<>(lease.shareKeys(), lease.token(), lease.leaseMillis));
        }
        return scripts.renew(renewals, replicas).thenApply(acked -> {
            if (acked.acks() < replicas.count()) {
                throw new LockReplicationException("renewal acknowledged by " + acked.acks() + " of "
                        + replicas.count() + " replicas", (int) acked.acks(), replicas.count());
            }
            return Watchdog.Verdict.of(acked.reply());
        });
    }

    @Override
    public String lossReason() {
        return "a renewal found its share ended or forced out";
    }
}
