package dev.warden.internal.lease;

import dev.warden.Ticker;
import dev.warden.internal.base.Errors;
import dev.warden.internal.base.Events;
import dev.warden.internal.wire.InFlight;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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
 * window is renewed in the same tick, in batches of up to {@value #BATCH} keys per request, so that leases
 * acquired together stay together and many leases cost few round trips. A lease whose local deadline passes
 * without a successful renewal (fixed leases: at their end) is lost. How a batch is sent, and what its reply
 * says of each lease, is the {@link Renewals}' part: one server's script, or the same script on each of a quorum's
 * servers.
 *
 * @param <L> the kind of lease
 */
public final class Watchdog<L extends LeaseBase> {
    /** What one renewal found of one lease. */
    public enum Verdict {
        /** Renewed: the lease lasts another lease from when the renewal was sent. */
        RENEWED,
        /** The lock is no longer this lease's: lost. */
        LOST,
        /** Not decided (no answer, or not from enough servers): tried again soon, until the deadline. */
        RETRY;

        /** @return per lease renewed or lost, from a renewal's answers */
        public static Verdict[] of(boolean[] renewed) {
            Verdict[] verdicts = new Verdict[renewed.length];
            for (int i = 0; i < renewed.length; i++) {
                verdicts[i] = renewed[i] ? RENEWED : LOST;
            }
            return verdicts;
        }
    }

    /** How the leases of one kind are renewed. */
    public interface Renewals<L> {
        /** Splits due leases into groups that one request may renew together. */
        Collection<List<L>> groups(List<L> due);

        /**
         * Sends the renewal of a batch (at most {@value Watchdog#BATCH} leases of one group).
         *
         * @return one verdict per lease, in the batch's order; a failed future means every lease is retried
         */
        CompletableFuture<Verdict[]> renew(List<L> batch);

        /** Why a lease that a renewal found {@link Verdict#LOST} is lost, for the log and the lost-callbacks. */
        String lossReason();
    }

    private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);
    /**
     * Keys per renewal script: 200 keys keep Redis busy for about a quarter of a millisecond per call (a GET and a
     * PEXPIREAT each), and halve the calls that 100 took.
     */
    static final int BATCH = 200;

    /** The leases watched: added and removed without the lock, iterated by the tick under it. */
    private final Set<L> leases = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService scheduler;
    private final Ticker ticker;
    private final InFlight inFlight;
    private final Renewals<L> renewals;
    private final Events events;
    /** The next tick, if scheduled. Guarded by this. */
    private ScheduledFuture<?> tick;
    /** When the next tick fires. Written under this watchdog's lock; read without it by the fast path of wakeAt. */
    private volatile long tickAt;
    /** Whether a tick is scheduled. Written under this watchdog's lock; read without it as tickAt is. */
    private volatile boolean tickScheduled;
    /** Guarded by this. */
    private boolean closed;

    /** @param inFlight where renewals count as requests in flight (new work, refused once the client closes) */
    public Watchdog(ScheduledExecutorService scheduler, Ticker ticker, InFlight inFlight, Events events,
             Renewals<L> renewals) {
        this.scheduler = scheduler;
        this.ticker = ticker;
        this.inFlight = inFlight;
        this.events = events;
        this.renewals = renewals;
    }

    public void register(L lease) {
        // A new lease is not yet shared with the tick, so its first event can be read without the lock.
        long event = lease.nextEvent();
        leases.add(lease);
        wakeAt(event);
    }

    public void unregister(L lease) {
        leases.remove(lease);
    }

    /** Moves the renewals of a lease to the lease that took its lock over locally, with the same token. */
    public void handOver(L from, L to) {
        synchronized (this) {
            leases.remove(from);
            to.renewAfter(from, ticker.read());
        }
        register(to);
    }

    /**
     * A fixed lease's key was given a new expiry of {@code leaseMillis} by a request sent at {@code sentAt}: its
     * deadline moves there, and a tick comes by then if it is sooner than the one scheduled.
     */
    public void expiresAfter(L lease, long sentAt, long leaseMillis) {
        long event;
        synchronized (this) {
            lease.expiresAfter(sentAt, leaseMillis);
            event = lease.nextEvent();
        }
        if (leases.contains(lease)) {
            wakeAt(event);
        }
    }

    public Set<L> leases() {
        return leases;
    }

    public synchronized void close() {
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
        List<L> due = new ArrayList<>();
        List<L> lost = new ArrayList<>();
        long next = 0;
        boolean any = false;
        long late = 0;
        synchronized (this) {
            tickScheduled = false;
            tick = null;
            if (closed) {
                return;
            }
            long now = ticker.read();
            for (L lease : leases) {
                if (!lease.active()) {
                    leases.remove(lease);
                } else if (now - lease.deadline() >= 0) {
                    leases.remove(lease);
                    lost.add(lease);
                } else {
                    long overdue = now - lease.renewalDue();
                    if (lease.startRenewal(now)) {
                        due.add(lease);
                        late = Math.max(late, overdue);
                    }
                    long event = lease.nextEvent();
                    next = any && next - event < 0 ? next : event;
                    any = true;
                }
            }
        }
        for (L lease : lost) {
            lease.ranOut(lease.renewing ? "its lease ran out before a renewal succeeded"
                    : "its fixed lease of " + lease.leaseMillis + " ms ran out before release");
        }
        for (List<L> group : renewals.groups(due)) {
            for (int i = 0; i < group.size(); i += BATCH) {
                renew(group.subList(i, Math.min(group.size(), i + BATCH)), late);
            }
        }
        if (any) {
            wakeAt(next);
        }
    }

    /** @param late how long after its due time the tick sent its most overdue lease, for the listener */
    private void renew(List<L> batch, long late) {
        long sentAt = ticker.read();
        LOG.debug("renewing {} leases in one request", batch.size());
        // A callback that throws, or a renewal that cannot be sent, counts as a failed renewal: retried.
        inFlight.send(InFlight.Kind.WORK, () -> renewals.renew(batch),
                (verdicts, error) -> onRenewed(batch, sentAt, late, verdicts, error),
                error -> onRenewed(batch, sentAt, late, null, error));
    }

    private void onRenewed(List<L> batch, long sentAt, long late, Verdict[] verdicts, Throwable error) {
        events.renewal(batch.size(), late, sentAt, error);
        List<L> lost = new ArrayList<>();
        long next = 0;
        boolean any = false;
        synchronized (this) {
            long now = ticker.read();
            for (int i = 0; i < batch.size(); i++) {
                L lease = batch.get(i);
                if (error != null || verdicts[i] == Verdict.RETRY) {
                    // Retry soon; the lease is lost only when its deadline passes without a success.
                    lease.renewalFailed(now);
                } else if (verdicts[i] == Verdict.RENEWED) {
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
        for (L lease : lost) {
            lease.loseUnlessReleasing(renewals.lossReason());
        }
        if (any) {
            wakeAt(next);
        }
    }
}
