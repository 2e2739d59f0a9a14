package dev.warden.internal.share;

import dev.warden.internal.script.ShareKeys;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The read and write leases of one client's read-write locks by the thread that acquired them, so that a thread
 * holding the write lock may take the read lock beside it (a downgrade), and a thread holding the read lock is
 * refused the write lock at once (an upgrade would wait for itself forever). Leases leave when released or lost.
 */
public final class ThreadShares {
    /** The live leases by the state key of their lock. Sets are added and removed by compute, atomically. */
    private final Map<String, Set<ShareLease>> byLock = new ConcurrentHashMap<>();

    void add(ShareLease lease) {
        byLock.computeIfAbsent(lease.shareKeys().state(), key -> ConcurrentHashMap.newKeySet()).add(lease);
    }

    void remove(ShareLease lease) {
        byLock.computeIfPresent(lease.shareKeys().state(), (key, leases) -> {
            leases.remove(lease);
            return leases.isEmpty() ? null : leases;
        });
    }

    /**
     * @param whole whether to find a writer's lease (the whole capacity), else a reader's
     * @return a lease of that lock held by the thread, of that kind, or null
     */
    ShareLease held(ShareKeys keys, Thread thread, boolean whole) {
        Set<ShareLease> leases = byLock.get(keys.state());
        if (leases == null) {
            return null;
        }
        for (ShareLease lease : leases) {
            if (lease.owner() == thread && lease.whole() == whole && lease.active()) {
                return lease;
            }
        }
        return null;
    }
}
