package dev.warden.internal.share;

import dev.warden.Lease;
import dev.warden.LockReplicationException;
import dev.warden.internal.base.DueFuture;
import dev.warden.internal.base.Errors;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Futures;
import dev.warden.internal.lease.LeaseBase;
import dev.warden.internal.lease.Phase;
import dev.warden.internal.lease.Standing;
import dev.warden.internal.script.Replies;
import dev.warden.internal.script.Scripts;
import dev.warden.internal.script.ShareKeys;
import dev.warden.internal.wait.Notifier;
import dev.warden.internal.wire.InFlight;
import dev.warden.internal.wire.Replicas;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One acquire of a shared lock's permits ({@link ShareLock}), driven by events: try; when the permits are not free,
 * the try has queued this waiter in Redis, so subscribe to this client's grant channel and try once more (a grant
 * published before the subscription was missed, but Redis remembers it); then wait for a grant, which a release
 * makes in its own script and announces by token, or for the first holder's lease to end, or to renew the
 * registration ({@link Scripts#REARM_MILLIS}), whichever comes first; until the deadline.
 *
 * <p>A grant names the try that registered the waiter (its arm), and the lease counts from that try's sending, for
 * the lease the registration asked for. {@link #result} completes with the lease, with empty when the wait ran
 * out, or exceptionally when Redis failed; cancelling it stops waiting. An acquisition that ends without a lease
 * after a try that may have queued or granted it sends one release by its token, which takes it out of the queue
 * or gives back a grant that came meanwhile.
 */
public final class ShareAcquisition implements Notifier.Waiter {
    private static final long ONE_MS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How many tries' send times are kept: a grant names the last try or one shortly before. */
    private static final int ARMS_KEPT = 4;

    /**
     * Where a waiter stands in its lock's queue in Redis, as far as its client knows: a snapshot, read under the
     * acquisition's monitor, for {@link ShareWaiters#reserveNext}.
     *
     * @param waiter   the acquisition
     * @param waiting  whether it still waits: not over, and no lease made
     * @param score    its place in the queue (arrival, server µs) since a try of it joined the queue, else 0
     * @param clear    whether no waiter of another client was queued when it joined, so none is ahead of it
     * @param placedAt when (ticker) its place became known here: a try sent after that joins behind it
     * @param sent     whether it sent a try
     * @param sentAt   when it sent its first try, if it did
     */
    record Place(ShareAcquisition waiter, boolean waiting, long score, boolean clear, long placedAt, boolean sent,
                 long sentAt) {
        /**
         * @return whether it may take over a share of {@code permits} with a renewed lease of {@code leaseMillis}:
         *         no more permits, the same lease, no downgrade (which is granted beside its writer instead), and no
         *         replica acknowledgements to wait for (a handover carries none)
         */
        boolean fits(long permits, long leaseMillis) {
            return waiter.permits <= permits && waiter.renewing && waiter.leaseMillis == leaseMillis
                    && waiter.companion.isEmpty() && !waiter.share.replicas().required();
        }
    }

    public final DueFuture<Optional<Lease>> result = new DueFuture<>();
    private final ShareLock share;
    private final ShareContext context;
    private final long permits;
    private final long leaseMillis;
    private final boolean renewing;
    private final boolean waits;
    private final boolean forever;
    private final long deadline;
    private final String token;
    private final long grantMillis;
    private final String companion;
    private final Thread owner;
    private final Events.AcquireWatch watch;
    private final String channel;

    /** Guarded by this. */
    private Phase phase = Phase.IDLE;
    /**
     * Whether it tried (a try may have queued it or lent it permits), listens on the grant channel as one of its
     * waiters ({@link Standing#JOINED}), or left; changed only by {@link #stand}. Guarded by this.
     */
    private Standing standing = Standing.NEW;
    /**
     * Data of {@link Phase#TRYING} and {@link Phase#RESERVED}: a wake-up came meanwhile, so try again after it.
     * Guarded by this.
     */
    private boolean woken;
    /** The next try's timer, if scheduled. Guarded by this. */
    private ScheduledFuture<?> timer;
    /** When the last tries were sent, by try number modulo {@link #ARMS_KEPT}. Guarded by this. */
    private final long[] armSentAt = new long[ARMS_KEPT];
    /** Tries sent so far, each a new arm of the registration. Guarded by this. */
    private int arms;
    /**
     * The grant channel's state when the last try was sent, to tell whether a grant can have been missed. Guarded by
     * this.
     */
    private Notifier.Mark markAtSend;
    /** Its place in the queue since a try joined it, else 0 ({@link Place#score}). Guarded by this. */
    private long score;
    /**
     * Data of its place: no waiter of another client was queued when it joined ({@link Place#clear}). Guarded by
     * this.
     */
    private boolean clear;
    /** When its place became known ({@link Place#placedAt}). Guarded by this. */
    private long placedAt;
    /** When its first try was sent, once {@link Standing#TRIED}. Guarded by this. */
    private long firstSentAt;

    /**
     * @param share     the shared lock it acquires: its name, keys, kind and capacity
     * @param context   what it uses of its client: scripts, notifier, waiters, in-flight requests, watchdog, clock,
     *                  scheduler
     * @param waitNanos 0 for one try, negative for no limit
     * @param companion the token of the asking thread's writer lease, for a downgrade, or the empty string
     */
    ShareAcquisition(ShareLock share, ShareContext context, long permits, long waitNanos, long leaseMillis,
                     boolean renewing, String companion, Thread owner, Events.AcquireWatch watch) {
        this.share = share;
        this.context = context;
        this.permits = permits;
        this.leaseMillis = leaseMillis;
        this.renewing = renewing;
        this.waits = waitNanos != 0;
        this.forever = waitNanos < 0;
        this.deadline = context.ticker().read() + Math.max(waitNanos, 0);
        this.token = context.newToken();
        this.grantMillis = renewing ? Math.min(leaseMillis, LeaseBase.FAIR_GRANT_MILLIS) : leaseMillis;
        this.companion = companion;
        this.owner = owner;
        this.watch = watch;
        this.channel = share.keys().grantChannel(context.instanceId());
    }

    ShareAcquisition start() {
        context.track(this);
        if (waits) {
            context.notifier().register(token, this);
            context.waiters().add(share.keys(), this);
        }
        Futures.whenDone(result, this::ended, "the end of an acquire", share.name());
        tryNow();
        return this;
    }

    /** Sends a try, unless one is in flight (then it follows that one) or the acquisition is over. */
    private void tryNow() {
        Scripts.Try kind;
        int arm;
        long sentAt;
        synchronized (this) {
            if (result.isDone() || phase == Phase.GRANTED || phase == Phase.LEAVING) {
                return;
            }
            if (phase == Phase.TRYING || phase == Phase.RESERVED) {
                woken = true;
                return;
            }
            move(Phase.TRYING);
            woken = false;
            cancelTimer();
            kind = Scripts.Try.of(waits, standing != Standing.NEW);
            sentAt = context.ticker().read();
            if (standing == Standing.NEW) {
                firstSentAt = sentAt;
            }
            stand(standing.afterTry());
            arm = arms++;
            armSentAt[arm % ARMS_KEPT] = sentAt;
            markAtSend = waits ? context.notifier().mark(channel) : null;
        }
        result.due();
        context.inFlight().send(InFlight.Kind.WORK, () -> context.scripts().acquire(share.keys(), share.kind(),
                share.capacity(), token, permits, leaseMillis, kind, arm, grantMillis, context.instanceId(),
                companion), (reply, error) -> {
                    if (error != null) {
                        fail(error);
                    } else if (reply instanceof Replies.Acquired acquired) {
                        granted(acquired.fence(), sentAt, acquired.grantedMillis());
                    } else if (reply instanceof Replies.Queued queued) {
                        placed(queued);
                        onHeld(queued.holderTtlMillis());
                    } else {
                        onHeld(((Replies.Held) reply).holderTtlMillis());
                    }
                }, this::fail);
    }

    /** A try joined the queue: where it stands. */
    private synchronized void placed(Replies.Queued queued) {
        score = queued.score();
        clear = queued.othersAhead() == 0;
        placedAt = context.ticker().read();
    }

    /** Where it stands, for {@link ShareWaiters#reserveNext}. */
    synchronized Place place() {
        return new Place(this, !result.isDone() && phase != Phase.GRANTED && phase != Phase.LEAVING, score, clear,
                placedAt, standing != Standing.NEW, firstSentAt);
    }

    /** A try found no room: give up, or subscribe, or wait for a grant or the next try. */
    private void onHeld(long firstEndMillis) {
        result.notDue();
        if (!waits || (!forever && context.ticker().read() - deadline >= 0)) {
            endEmpty();
            return;
        }
        boolean join = false;
        boolean retry = false;
        Notifier.Mark mark = null;
        synchronized (this) {
            if (result.isDone() || phase != Phase.TRYING) {
                return;
            }
            move(Phase.IDLE);
            if (standing != Standing.JOINED) {
                stand(Standing.JOINED);
                join = true;
                mark = markAtSend;
            } else if (woken) {
                retry = true;
            } else {
                timer = context.scheduler().schedule(this::wake, delay(firstEndMillis), TimeUnit.NANOSECONDS);
            }
        }
        if (join) {
            watch.waiting();
            CompletableFuture<Void> subscription = context.notifier().join(channel, this);
            if (context.notifier().unbroken(channel, mark)) {
                // Subscribed without a break since before the try was sent: a grant made after it reaches this
                // waiter by its token, so wait rather than try again.
                waitForGrant(firstEndMillis);
                return;
            }
            // Grants published before the subscription were missed; Redis remembers them, and the next try finds
            // the permits lent to this token.
            context.inFlight().send(InFlight.Kind.WORK, () -> subscription, (ignored, e) -> {
                if (e != null) {
                    fail(e);
                } else {
                    wake();
                }
            }, this::fail);
        } else if (retry) {
            wake();
        }
    }

    /**
     * Ends without a share, after a try that found no room: a waiter leaves its channel and, since a try may have
     * queued it, the queue, with one request that gives back permits granted to it meanwhile; the result completes
     * empty once that request has answered ({@link Phase#LEAVING}; a grant heard from now on is ignored). So an empty
     * result means that nothing of this acquire holds the share: a multi-lock's acquire that ends empty holds none of
     * its parts. If the request fails, the result is still empty, and a grant expires with its lease.
     */
    private void endEmpty() {
        boolean wasJoined;
        boolean leave;
        synchronized (this) {
            // Not TRYING: a grant message overtook the try's reply (the lease is on its way), or it ended.
            if (result.isDone() || phase != Phase.TRYING) {
                return;
            }
            move(Phase.LEAVING);
            wasJoined = standing == Standing.JOINED;
            leave = waits && standing.tried();
            standLeft();
        }
        depart(wasJoined, leave, () -> result.complete(Optional.empty()));
    }

    /** Stands {@link Standing#LEFT}, with no timer left to wake it. Guarded by this. */
    private void standLeft() {
        cancelTimer();
        stand(Standing.LEFT);
    }

    /**
     * Leaves the channel if it had joined it, and the queue with one request by token if {@code cleanUp} (which also
     * gives back permits lent to this token meanwhile); then runs {@code then}, once that request has answered (or at
     * once if none is sent).
     */
    private void depart(boolean wasJoined, boolean cleanUp, Runnable then) {
        if (wasJoined) {
            context.notifier().leave(channel, this, false);
        }
        if (cleanUp) {
            context.inFlight().sendCleanupThen(share.name(), "leaving the queue", () -> share.release(token), then);
        } else {
            then.run();
        }
    }

    /** After joining a channel that missed nothing: wait like any waiter, unless a wake came meanwhile. */
    private void waitForGrant(long firstEndMillis) {
        boolean retry;
        synchronized (this) {
            if (result.isDone() || phase != Phase.IDLE) {
                return;
            }
            retry = woken;
            if (!retry) {
                timer = context.scheduler().schedule(this::wake, delay(firstEndMillis), TimeUnit.NANOSECONDS);
            }
        }
        if (retry) {
            wake();
        }
    }

    private long delay(long firstEndMillis) {
        long rearm = TimeUnit.MILLISECONDS.toNanos(Scripts.REARM_MILLIS);
        long delay = firstEndMillis > 0 ? Math.min(TimeUnit.MILLISECONDS.toNanos(firstEndMillis) + ONE_MS, rearm)
                : rearm;
        if (!forever) {
            delay = Math.min(delay, deadline - context.ticker().read());
        }
        return Math.max(delay, 0);
    }

    /**
     * The permits are this token's, by its try or a release's grant. Where replicas must acknowledge, one more
     * request (a write to the share, then {@code WAIT}) makes sure they have the grant before the lease counts: a
     * grant by another client's release was not acknowledged, and a try that found the grant made wrote nothing.
     */
    private void granted(long fence, long sentAt, long grantedMillis) {
        Replicas replicas = share.replicas();
        if (!replicas.required()) {
            grant(fence, sentAt, grantedMillis, 0);
            return;
        }
        // Off the connection's I/O thread, where this may run: the first request on the acknowledgement connection
        // opens it, which waits for that thread.
        context.scheduler().execute(() -> confirm(fence, sentAt, grantedMillis, replicas));
    }

    /** Confirms a grant with the replicas' acknowledgements, then makes the lease; see {@link #granted}. */
    private void confirm(long fence, long sentAt, long grantedMillis, Replicas replicas) {
        context.inFlight().send(InFlight.Kind.WORK, () -> context.scripts().expire(share.keys(), token,
                grantedMillis, replicas), (acked, error) -> {
                    if (error != null) {
                        fail(error);
                    } else if (!acked.reply()) {
                        // Ended or forced out before it was confirmed: it was never this caller's; try again.
                        synchronized (this) {
                            if (phase == Phase.TRYING) {
                                move(Phase.IDLE);
                            }
                        }
                        wake();
                    } else if (acked.acks() < replicas.count()) {
                        result.completeExceptionally(new LockReplicationException(share.describe("acquire")
                                + ": granted but acknowledged by " + acked.acks() + " of " + replicas.count()
                                + " replicas within " + replicas.timeoutMillis() + " ms; released again",
                                (int) acked.acks(), replicas.count()));
                    } else {
                        grant(fence, sentAt, grantedMillis, (int) acked.acks());
                    }
                }, this::fail);
    }

    /** Makes the lease, once, and hands it to the caller; a grant after the acquisition ended is given back. */
    private void grant(long fence, long sentAt, long grantedMillis, int acks) {
        synchronized (this) {
            if (phase == Phase.GRANTED || phase == Phase.LEAVING || result.isDone()) {
                // Over already: the release sent when it ended (or leaving) gives these permits back.
                return;
            }
            move(Phase.GRANTED);
            cancelTimer();
        }
        ShareLease lease = new ShareLease(share, context, token, fence, permits, leaseMillis, renewing, sentAt,
                grantedMillis, owner, acks);
        context.watchdog().register(lease);
        if (share.kind() == ShareKeys.Kind.READ_WRITE) {
            context.threadShares().add(lease);
        }
        if (!result.complete(Optional.of(lease))) {
            lease.abandon();
        }
    }

    private void fail(Throwable error) {
        result.completeExceptionally(Errors.translate(error, share.describe("acquire")));
    }

    /**
     * The acquisition ended: stop listening, and unless it ended with a lease, release by the token if a try may
     * have queued it (a waiter) or lent it permits (a try without an answer, or cancelled in flight).
     */
    private void ended(Optional<Lease> lease, Throwable error) {
        context.untrack(this);
        boolean wasJoined;
        boolean cleanUp;
        synchronized (this) {
            wasJoined = standing == Standing.JOINED;
            cleanUp = standing.tried() && (lease == null || lease.isEmpty()) && (waits || error != null);
            standLeft();
        }
        if (waits) {
            context.notifier().unregister(token);
            context.waiters().remove(share.keys(), this);
        }
        depart(wasJoined, cleanUp, () -> { });
    }

    /**
     * The one place where the standing changes. Guarded by this.
     *
     * @throws IllegalStateException for a move backwards or out of {@link Standing#LEFT}: a bug
     */
    private void stand(Standing next) {
        standing = standing.to(next, share.describe("acquire"));
    }

    /**
     * The one place where the phase changes. Guarded by this.
     *
     * @throws IllegalStateException for a move the protocol never makes: a bug, which fails the acquisition loudly
     */
    private void move(Phase next) {
        phase = phase.to(next, share.describe("acquire"));
    }

    /** Guarded by this. */
    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    @Override
    public void wake() {
        tryNow();
    }

    @Override
    public boolean reserve() {
        // Only a share's release reserves a share's waiter, by its place (reserve(long)); the notifier never does.
        return false;
    }

    /**
     * Reserves this waiter for a local handover ({@link ShareWaiters#reserveNext}): only while it waits with no try
     * in flight, at the place the caller chose it by.
     */
    synchronized boolean reserve(long expectedScore) {
        if (result.isDone() || phase != Phase.IDLE || score != expectedScore) {
            return false;
        }
        move(Phase.RESERVED);
        cancelTimer();
        return true;
    }

    /**
     * A holder of this client hands its share (or part of it) over to this reserved waiter, at ticker time
     * {@code now}: commits the waiter to the new lease, which keeps the holder's deadline and renewals under this
     * waiter's token. The holder then sends the script that moves the share in Redis, and only then hands the lease
     * out ({@link #deliver}), so that the script reaches Redis ahead of any request of the new holder.
     *
     * @return the new lease, or null if this waiter cannot take it (a grant came first, or it gave up)
     */
    ShareLease takeOver(ShareLease from, long now) {
        synchronized (this) {
            if (result.isDone() || phase != Phase.RESERVED) {
                return null;
            }
            move(Phase.GRANTED);
        }
        ShareLease lease = from.successor(token, permits, owner, now);
        if (share.kind() == ShareKeys.Kind.READ_WRITE) {
            context.threadShares().add(lease);
        }
        return lease;
    }

    /** Hands out the lease that {@link #takeOver} made; one nobody takes any more (cancelled) is given back. */
    void deliver(ShareLease lease) {
        if (!result.complete(Optional.of(lease))) {
            lease.abandon();
        }
    }

    @Override
    public void unreserve() {
        synchronized (this) {
            if (phase == Phase.RESERVED) {
                move(Phase.IDLE);
            }
        }
        wake();
    }

    @Override
    public void assigned(long fence, int arm, List<String> upcoming) {
        long sentAt;
        boolean known;
        synchronized (this) {
            known = arm >= 0 && arm < arms && arm >= arms - ARMS_KEPT;
            sentAt = known ? armSentAt[arm % ARMS_KEPT] : 0;
        }
        if (known) {
            granted(fence, sentAt, grantMillis);
        } else {
            // Too old to date: the next try finds the permits lent to this token, with the lease left.
            wake();
        }
    }

    @Override
    public String token() {
        return token;
    }

    /** @return the permits it asks for */
    long permits() {
        return permits;
    }

    @Override
    public long leaseMillis() {
        return leaseMillis;
    }
}
