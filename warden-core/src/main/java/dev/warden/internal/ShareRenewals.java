package dev.warden.internal;

import io.lettuce.core.cluster.SlotHash;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Renewals of one deployment's shares (semaphore permits, read and write leases): one script call per batch. */
final class ShareRenewals implements Watchdog.Renewals<ShareLease> {
    private final ShareScripts scripts;
    private final boolean bySlot;

    /** @param bySlot batch only shares of one cluster slot together, since a script may not touch several */
    ShareRenewals(ShareScripts scripts, boolean bySlot) {
        this.scripts = scripts;
        this.bySlot = bySlot;
    }

    @Override
    public Collection<List<ShareLease>> groups(List<ShareLease> due) {
        if (!bySlot) {
            return List.of(due);
        }
        Map<Integer, List<ShareLease>> groups = new HashMap<>();
        for (ShareLease lease : due) {
            groups.computeIfAbsent(SlotHash.getSlot(lease.shareKeys().state()), slot -> new ArrayList<>()).add(lease);
        }
        return groups.values();
    }

    @Override
    public CompletableFuture<Watchdog.Verdict[]> renew(List<ShareLease> batch) {
        return scripts.renew(batch).thenApply(RedisRenewals::verdicts);
    }

    @Override
    public String lossReason() {
        return "a renewal found its share ended or forced out";
    }
}
