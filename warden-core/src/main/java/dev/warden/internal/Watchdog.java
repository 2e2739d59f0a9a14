package dev.warden.internal;

import dev.warden.LockReplicationException;
import dev.warden.Ticker;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps renewed leases alive and detects lost ones, for all leases of one client on one scheduler.
 *
 * <p>A renewed lease is due a third of its lease after its last renewal was sent; every lease due within a small
 * window is renewed in the same tick, in batches of up to {@value #BATCH} keys per script call, so that leases
 * acquired together stay together and many leases cost few round trips. A lease whose local deadline passes
 * without a successful renewal (fixed leases: at their end) is lost.
 */
final class Watchdog {
    private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);
    /**
     * Keys per renewal script: 200 keys keep Redis busy for about a quarter of a millisecond per call (a GET and a
     * PEXPIRE each), and halve the calls that 100 took.
     */
    static final int BATCH = 200;

    /** The leases watched: added and removed without the lock, iterated by the tick under it. */
    private final Set<RedisLease> leases = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService scheduler;
    private final Ticker ticker;
    private final Scripts scripts;
    private final InFlight inFlight;
    private final boolean bySlot;
    /** The next tick, if scheduled. Guarded by this. */
    private ScheduledFuture<?> tick;
    /** When the next tick fires. Written under this watchdog's lock; read without it by the fast path of wakeAt. */
    private volatile long tickAt;
    /** Whether a tick is scheduled. Written under this watchdog's lock; read without it as tickAt is. */
    private volatile boolean tickScheduled;
    /** Guarded by this. */
    private boolean closed;

    /**
     * @param bySlot batch only keys of one cluster slot together, since a script may not touch keys of several
     */
    Watchdog(ScheduledExecutorService scheduler, Ticker ticker, Scripts scripts, InFlight inFlight, boolean bySlot) {
        this.scheduler = scheduler;
        this.ticker = ticker;
        this.scripts = scripts;
        this.inFlight = inFlight;
        this.bySlot = bySlot;
    }

    void register(RedisLease lease) {
        // A new lease is not yet shared with the tick, so its first event can be read without the lock.
        long event = lease.nextEvent();
        leases.add(lease);
        wakeAt(event);
    }

    void unregister(RedisLease lease) {
        leases.remove(lease);
    }

    /** Moves the renewals of a lease to the lease that took its lock over locally, with the same token. */
    void handOver(RedisLease from, RedisLease to) {
        synchronized (this) {
            leases.remove(from);
            to.renewAfter(from, ticker.read());
        }
        register(to);
    }

    Set<RedisLease> leases() {
        return leases;
    }

    synchronized void close() {
        closed = true;
        if (tick != null) {
            tick.cancel(false);
        }
    }

    private void wakeAt(long at) {
        // Fast path without the lock: a tick at or before this time is already scheduled.
        if (tickScheduled && tickAt - at <= 0) {
            return;
        }
        synchronized (this) {
            if (closed || (tickScheduled && tickAt - at <= 0)) {
                return;
            }
            if (tick != null) {
                tick.cancel(false);
            }
            tickAt = at;
            tickScheduled = true;
            tick = scheduler.schedule(this::tick, Math.max(0, at - ticker.read()), TimeUnit.NANOSECONDS);
        }
    }

    private void tick() {
        List<RedisLease> due = new ArrayList<>();
        List<RedisLease> lost = new ArrayList<>();
        long next = 0;
        boolean any = false;
        synchronized (this) {
            tickScheduled = false;
            tick = null;
            if (closed) {
                return;
            }
            long now = ticker.read();
            for (RedisLease lease : leases) {
                if (!lease.active()) {
                    leases.remove(lease);
                } else if (now - lease.deadline() >= 0) {
                    leases.remove(lease);
                    lost.add(lease);
                } else {
                    if (lease.startRenewal(now)) {
                        due.add(lease);
                    }
                    long event = lease.nextEvent();
                    next = any && next - event < 0 ? next : event;
                    any = true;
                }
            }
        }
        for (RedisLease lease : lost) {
            lease.loseUnlessReleasing(lease.renewing ? "its lease ran out before a renewal succeeded"
                    : "its fixed lease of " + lease.leaseMillis + " ms ran out before release");
        }
        for (List<RedisLease> group : groups(due)) {
            for (int i = 0; i < group.size(); i += BATCH) {
                renew(group.subList(i, Math.min(group.size(), i + BATCH)));
            }
        }
        if (any) {
            wakeAt(next);
        }
    }

    /** Splits due leases into groups that one script may renew: same replica policy, and same slot in a cluster. */
    private Collection<List<RedisLease>> groups(List<RedisLease> due) {
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

    private void renew(List<RedisLease> batch) {
        String[] keys = new String[batch.size()];
        String[] args = new String[batch.size() * 2];
        for (int i = 0; i < batch.size(); i++) {
            RedisLease lease = batch.get(i);
            keys[i] = lease.keys.lock();
            args[2 * i] = lease.token;
            args[2 * i + 1] = Long.toString(lease.leaseMillis);
        }
        long sentAt = ticker.read();
        LOG.debug("renewing {} leases in one call", batch.size());
        Replicas replicas = batch.get(0).replicas;
        // A callback that throws, or a renewal that cannot be sent, counts as a failed renewal: retried.
        if (!replicas.required()) {
            inFlight.send(InFlight.Kind.WORK, () -> scripts.renew(keys, args),
                    (results, error) -> onRenewed(batch, sentAt, results, error),
                    error -> onRenewed(batch, sentAt, null, error));
            return;
        }
        inFlight.send(InFlight.Kind.WORK, () -> scripts.renew(keys, args, replicas), (acked, error) -> {
            if (error == null && acked.acks() < replicas.count()) {
                // Not on enough replicas: a failover now would bring back the older expiry, so it does not count.
                error = new LockReplicationException("renewal acknowledged by " + acked.acks() + " of "
                        + replicas.count() + " replicas", (int) acked.acks(), replicas.count());
            }
            onRenewed(batch, sentAt, error == null ? acked.reply() : null, error);
        }, error -> onRenewed(batch, sentAt, null, error));
    }

    private void onRenewed(List<RedisLease> batch, long sentAt, boolean[] renewed, Throwable error) {
        List<RedisLease> lost = new ArrayList<>();
        long next = 0;
        boolean any = false;
        synchronized (this) {
            long now = ticker.read();
            for (int i = 0; i < batch.size(); i++) {
                RedisLease lease = batch.get(i);
                if (error != null) {
                    // Retry soon; the lease is lost only when its deadline passes without a success.
                    lease.renewalFailed(now);
                } else if (renewed[i]) {
                    lease.renewed(sentAt);
                } else {
                    leases.remove(lease);
                    lost.add(lease);
                    continue;
                }
                long event = lease.nextEvent();
                next = any && next - event < 0 ? next : event;
                any = true;
            }
        }
        if (error != null) {
            LOG.warn("renewal of {} leases failed, retrying until their deadlines: {}", batch.size(),
                    Errors.unwrap(error).toString());
        }
        for (RedisLease lease : lost) {
            lease.loseUnlessReleasing("a renewal found the lock expired or owned by another token");
        }
        if (any) {
            wakeAt(next);
        }
    }
}
