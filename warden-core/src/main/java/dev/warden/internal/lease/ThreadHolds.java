package dev.warden.internal.lease;

import dev.warden.IllegalLockStateException;
import dev.warden.Lease;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The leases that one client's threads hold by blocking acquires, by lock name, so that a thread that asks again for
 * a lock it holds is refused at once instead of waiting for itself: Warden's locks are not reentrant (their
 * {@link dev.warden.DistributedLock#asLock() Lock view} is). A lease counts as its acquiring thread's until it is
 * released or lost, even if handed to another thread meanwhile; asynchronous acquires count for no thread, since
 * their leases are meant to travel.
 *
 * <p>Each thread sees only its own map (a {@link ThreadLocal}), so no lock guards it. Its values are weak: a lease
 * whose holder dropped it without releasing it does not keep the client reachable from the thread, and a released
 * lease leaves the map the next time the thread acquires that name, or when the map grows past
 * {@link #PRUNE_AT} entries.
 */
public final class ThreadHolds {
    /** The size at which a thread's map drops every lease no longer held. */
    private static final int PRUNE_AT = 64;

    private final ThreadLocal<Map<String, WeakReference<Lease>>> held = ThreadLocal.withInitial(HashMap::new);

    /**
     * @param describe names an operation on the lock, for the message
     * @throws IllegalLockStateException if the calling thread holds one of the locks by a blocking acquire
     */
    void refuseSelfWait(List<String> names, UnaryOperator<String> describe) {
        Map<String, WeakReference<Lease>> mine = held.get();
        if (mine.isEmpty()) {
            return;
        }
        for (String name : names) {
            WeakReference<Lease> ref = mine.get(name);
            Lease lease = ref == null ? null : ref.get();
            if (lease != null && lease.isHeld()) {
                throw new IllegalLockStateException(describe.apply("acquire") + ": this thread holds lock '" + name
                        + "' already, by a lease it acquired and has not released; the acquire would wait for "
                        + "itself. Warden's locks are not reentrant: release that lease first, acquire from another "
                        + "thread, or use asLock(), which is");
            }
            if (ref != null) {
                mine.remove(name);
            }
        }
    }

    /** Counts a lease as the calling thread's, under each of the names it holds. */
    void add(List<String> names, Lease lease) {
        Map<String, WeakReference<Lease>> mine = held.get();
        if (mine.size() >= PRUNE_AT) {
            mine.values().removeIf(ref -> {
                Lease each = ref.get();
                return each == null || !each.isHeld();
            });
        }
        WeakReference<Lease> ref = new WeakReference<>(lease);
        for (String name : names) {
            mine.put(name, ref);
        }
    }
}
