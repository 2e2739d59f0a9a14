package dev.warden.internal.lock;

import dev.warden.Lease;
import dev.warden.LockConnectionException;
import dev.warden.LockException;
import dev.warden.LockReplicationException;
import dev.warden.LockTimeoutException;
import dev.warden.internal.base.DueFuture;
import dev.warden.internal.base.Errors;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Futures;
import dev.warden.internal.lease.LeaseBase;
import dev.warden.internal.lease.Phase;
import dev.warden.internal.lease.Standing;
import dev.warden.internal.script.QuietRenewal;
import dev.warden.internal.script.Registration;
import dev.warden.internal.script.Replies;
import dev.warden.internal.script.Scripts;
import dev.warden.internal.wait.Notifier;
import dev.warden.internal.wait.QuietRefresh;
import dev.warden.internal.wire.InFlight;
import dev.warden.internal.wire.Replicas;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquire, driven by events and never by a blocked thread: try; when held, subscribe to the lock's channel
 * (then try again, since a release published before the subscription was missed); then wait for a wake-up or for
 * the holder's TTL to run out, whichever comes first, and try again until the deadline.
 *
 * <p>Where waiters queue ({@link RedisLock#queued}: fair mode, and the default mode without replica
 * acknowledgements) every try of a waiter registers it in the lock's queue; a release grants the lock to the oldest
 * registered waiter, which then holds it without a further request. A try sent while this client listens on its
 * grant channel registers the waiter quietly where the server counts the receivers of a publication
 * ({@link Scripts#receiversCounted}; {@code queue.lua}): it then sends nothing until the holder's TTL runs out (then
 * its client's {@link QuietRefresh} renews all its quiet waiters of the lock in one request) or its wait ends, and a
 * release skips it once its client no longer listens. A registration that is not quiet is renewed with a try at
 * least every {@link Scripts#REARM_MILLIS} ms. A waiter whose wait ends leaves the queue with one request and no last
 * try, and ends empty once that request has answered ({@link Phase#LEAVING}). Its lease counts from the sending of the
 * try that the release names (the grant came after it), for the lease the registration asked for. The default mode's
 * first try is a plain {@code SET NX} while this client has not waited for the lock lately, and may take a lock whose
 * holder expired ahead of its queue. Where waiters queue, a waiter whose own client holds the lock holds back its
 * first try ({@link Notifier#defer}): in the default mode that holder passes the lock on to it locally
 * ({@link #takeOver}), with no request of the waiter's own, while its bounds on local handovers allow; else the
 * holder's release registers it ({@link #board}), in the same script and counting from that release's sending, as if
 * by its try. Fair mode holds back for up to {@link #HOLD_BACK_NANOS}, the default mode for up to
 * {@link #DEFAULT_HOLD_BACK_NANOS}; a wait that runs out while held back ends without a request.
 *
 * <p>{@link #result} completes with the lease, with empty when the wait ran out, or exceptionally when Redis
 * failed. Cancelling it stops waiting; a lease granted at that moment is released.
 */
public final class Acquisition implements Notifier.Waiter, QuietRefresh.Member {
    private static final Logger LOG = LoggerFactory.getLogger(Acquisition.class);
    private static final long ONE_MS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * Where waiters queue: how many tries' send times are kept. Tries are sequential, so a grant names the last try
     * or the one before; a grant that reaches a waiter later than that is also seen by the waiter's own next try.
     */
    private static final int ARMS_KEPT = 4;
    /**
     * Fair mode: the longest a waiter's first try is held back for the release of a lease of its own client. A
     * release that comes sooner registers the waiter in its own script; a longer hold lets the waiter register on
     * its own while the holder works, off the path of the release.
     */
    static final long HOLD_BACK_NANOS = TimeUnit.MICROSECONDS.toNanos(500);
    /**
     * The default mode: the longest a waiter's first try is held back for a lease of its own client. That lease's
     * release or loss ends the hold-back anyway (a local handover, a registration by the release, or a wake-up); this
     * bound only keeps a waiter from waiting on a lease whose end this client missed.
     */
    static final long DEFAULT_HOLD_BACK_NANOS = TimeUnit.MILLISECONDS.toNanos(Scripts.REARM_MILLIS);

    public final DueFuture<Optional<Lease>> result;
    private final RedisLock lock;
    private final LockContext context;
    private final long leaseMillis;
    private final boolean renewing;
    private final boolean waits;
    private final boolean forever;
    private final long deadline;
    private final String token;
    private final boolean fair;
    /** Whether waiters queue in Redis and releases grant to them ({@link RedisLock#queued}). */
    private final boolean queued;
    /** Whether this waiter may register quietly: it queues, and the server counts receivers. */
    private final boolean quietable;
    private final long grantMillis;
    /** Told when this acquisition starts waiting, for the listener. */
    private final Events.AcquireWatch watch;

    /**
     * Where this acquisition stands; changed only by {@link #move}. Guarded by this. The acquisition is over once
     * {@link #result} is done, whatever the phase.
     */
    private Phase phase = Phase.IDLE;
    /**
     * Whether it tried, listens on the lock's channel in this client's {@link Notifier}, or left; changed only by
     * {@link #stand}. Where waiters queue, a waiter that tried may be registered in Redis until it leaves
     * ({@link #registered}). Guarded by this.
     */
    private Standing standing = Standing.NEW;
    /**
     * Data of {@link Phase#TRYING} and {@link Phase#RESERVED}: a wake-up came meanwhile, so try again after; cleared
     * by the next try's {@link #sending}. Guarded by this.
     */
    private boolean woken;
    /** The subscription this waiter joined, once {@link Standing#JOINED}. Guarded by this. */
    private CompletableFuture<Void> subscription;
    /**
     * The subscription after whose completion this waiter tried once: a try that then still registers it renewing
     * (the server does not see the subscription, as after a reconnect before the resubscription) renews it on the
     * timer, never in a loop. Guarded by this.
     */
    private CompletableFuture<Void> triedAfter;
    /**
     * Data of the registration, as the last answered try left it: whether it registered this waiter quietly. When
     * the holder's TTL it saw runs out, a quiet waiter takes part in its client's {@link QuietRefresh} of the lock
     * instead of trying on its own. Guarded by this.
     */
    private boolean quiet;
    /** The wake-up or hold-back timer, if one is scheduled. Guarded by this. */
    private ScheduledFuture<?> timer;
    /** The channel's state when the first try was sent, to tell whether a release was missed. Guarded by this. */
    private Notifier.Mark markAtSend;
    /** Where waiters queue: when the last tries were sent, by try number modulo {@link #ARMS_KEPT}. Guarded by this. */
    private final long[] armSentAt = new long[ARMS_KEPT];
    /** Where waiters queue: the tries sent so far, each a new arm of the registration. Guarded by this. */
    private int arms;

    /**
     * @param lock      the lock it acquires: its name, keys and mode
     * @param context   what it uses of its client: scripts, notifier, in-flight requests, watchdog, clock, scheduler
     * @param waitNanos how long to wait: 0 for one try, negative for no limit
     * @param watch     told when the acquisition starts waiting
     */
    Acquisition(RedisLock lock, LockContext context, long waitNanos, long leaseMillis, boolean renewing,
                Events.AcquireWatch watch) {
        this.watch = watch;
        this.lock = lock;
        this.context = context;
        this.result = new DueFuture<>();
        this.leaseMillis = leaseMillis;
        this.renewing = renewing;
        this.waits = waitNanos != 0;
        this.forever = waitNanos < 0;
        this.deadline = context.ticker().read() + Math.max(waitNanos, 0);
        this.token = context.newToken();
        this.fair = lock.fair();
        this.queued = lock.queued();
        this.quietable = queued && waits && context.scripts().receiversCounted();
        this.grantMillis = renewing ? Math.min(leaseMillis, LeaseBase.FAIR_GRANT_MILLIS) : leaseMillis;
    }

    Acquisition start() {
        context.track(this);
        if (queued && waits) {
            context.notifier().register(token, this);
        }
        Futures.whenDone(result, (value, error) -> {
            context.untrack(this);
            if (queued && waits) {
                context.notifier().unregister(token);
                if (heldBack()) {
                    // Given up (or failed) while held back: no release is to board it or hand it the lock.
                    context.notifier().undefer(lock.keys(), this);
                }
            }
            if (error != null) {
                leaveQueue(true);
            }
        }, "the end of an acquisition", lock.name());
        wake();
        return this;
    }

    /**
     * The one place where the phase changes. Guarded by this.
     *
     * @throws IllegalStateException for a move the protocol never makes: a bug, which fails the acquisition
     *                               loudly (through {@link InFlight}) instead of leaving it in a state nobody expects
     */
    private void move(Phase next) {
        phase = phase.to(next, "acquisition of lock '" + lock.name() + "'");
    }

    /**
     * The one place where the standing changes. Guarded by this.
     *
     * @throws IllegalStateException for a move backwards or out of {@link Standing#LEFT}: a bug, as for {@link #move}
     */
    private void stand(Standing next) {
        standing = standing.to(next, "acquisition of lock '" + lock.name() + "'");
    }

    /** Where waiters queue: whether a try of this waiter may have registered it in Redis. Guarded by this. */
    private boolean registered() {
        return queued && waits && standing.tried();
    }

    /** @return whether the first try is held back for a lease of this client */
    private synchronized boolean heldBack() {
        return phase == Phase.HELD_BACK;
    }

    /** @return the current phase, for tests */
    synchronized Phase phase() {
        return phase;
    }

    /** @return whether this waiter is registered, subscribed and idle, with no try in flight: for tests */
    synchronized boolean waitingIdle() {
        return phase == Phase.IDLE && standing == Standing.JOINED && registered() && !woken;
    }

    /**
     * Tries now, or as soon as the attempt in flight has answered. Called by timers, the notifier and replies: a
     * failure here has no caller of its own, so it fails the acquisition.
     */
    @Override
    public void wake() {
        try {
            tryNow();
        } catch (RuntimeException | Error e) {
            failed(e);
        }
    }

    /**
     * The wait's timer: a quiet waiter whose holder's TTL ran out takes part in its client's refresh of the lock; any
     * other tries now (its wait may also be over).
     */
    private void timerFired() {
        try {
            boolean refresh;
            synchronized (this) {
                refresh = quiet && refreshable() && (forever || context.ticker().read() - deadline < 0);
            }
            if (refresh) {
                context.quietRefresh().due(lock.keys(), this);
            } else {
                tryNow();
            }
        } catch (RuntimeException | Error e) {
            failed(e);
        }
    }

    /** Whether a refresh may renew this waiter's registration for it: idle and registered. Guarded by this. */
    private boolean refreshable() {
        return phase == Phase.IDLE && !result.isDone() && standing == Standing.JOINED && registered() && !woken;
    }

    @Override
    public QuietRenewal claim(long sentAt) {
        synchronized (this) {
            if (!quiet || !refreshable()) {
                return null;
            }
            int arm = sending(sentAt);
            long left = forever ? -1 : Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - context.ticker().read()));
            return new QuietRenewal(token, left, grantMillis, arm);
        }
    }

    @Override
    public void renewed(long holderTtlMillis) {
        try {
            onHeld(holderTtlMillis, true);
        } catch (RuntimeException | Error e) {
            failed(e);
        }
    }

    @Override
    public void missed() {
        try {
            synchronized (this) {
                if (phase == Phase.TRYING) {
                    move(Phase.IDLE);
                }
            }
            tryNow();
        } catch (RuntimeException | Error e) {
            failed(e);
        }
    }

    @Override
    public void alone() {
        wake();
    }

    private void tryNow() {
        long sentAt = 0;
        int arm = 0;
        Scripts.Try kind = null;
        boolean undefer = false;
        Leaving leaving = null;
        boolean heldBack = false;
        synchronized (this) {
            // GRANTED: until the result completes, a try would only take the lock again with this acquisition's
            // own token (a lease taken over locally has another), which nobody would release. LEAVING: the wait ran
            // out.
            if (result.isDone() || phase == Phase.GRANTED || phase == Phase.LEAVING) {
                return;
            }
            if (phase == Phase.TRYING || phase == Phase.RESERVED) {
                woken = true;
                return;
            }
            if (queued && waits && !forever && (phase == Phase.IDLE && standing != Standing.NEW
                    || phase == Phase.HELD_BACK) && context.ticker().read() - deadline >= 0) {
                // The wait is over: leave the queue with one request, with no last try; held back, it never
                // registered, so it just leaves, at once: a release that boards it or a holder that reserves it from
                // now on finds it gone.
                undefer = phase == Phase.HELD_BACK;
                leaving = leave();
            } else if (phase == Phase.IDLE && queued && waits && standing == Standing.NEW
                    && context.notifier().defer(lock.keys(), this)) {
                move(Phase.HELD_BACK);
                long bound = fair ? HOLD_BACK_NANOS : DEFAULT_HOLD_BACK_NANOS;
                long holdBack = forever ? bound : Math.max(0, Math.min(bound, deadline - context.ticker().read()));
                timer = context.scheduler().schedule(this::wake, holdBack, TimeUnit.NANOSECONDS);
                heldBack = true;
            } else {
                undefer = phase == Phase.HELD_BACK;
                sentAt = context.ticker().read();
                kind = Scripts.Try.of(waits, standing != Standing.NEW);
                arm = sending(sentAt);
                if (standing != Standing.JOINED) {
                    // The notifier never calls a waiter under its own lock, so this order (waiter, then notifier)
                    // cannot deadlock.
                    markAtSend = waits ? context.notifier().mark(lock.keys(), queued) : null;
                }
            }
        }
        if (undefer) {
            // Held back, but no release took it along in time: it tries on its own, or its wait is over.
            context.notifier().undefer(lock.keys(), this);
        }
        if (leaving != null) {
            endEmpty(leaving);
            return;
        }
        if (heldBack) {
            watch.waiting();
            return;
        }
        result.due();
        // A first try on a lock this client has not waited for lately is a plain SET NX, which costs Redis far less
        // than a script; where the key exists (held, or free with a fence to carry on), the script tries next.
        if (kind == Scripts.Try.FIRST && !fair && !lock.replicas().required()
                && !context.notifier().waitedFor(lock.keys(), queued)) {
            trySet(sentAt);
        } else {
            send(kind, arm, sentAt);
        }
    }

    /** A first try by {@link Scripts#trySet}; if the key exists, the script's first try follows. */
    private void trySet(long sentAt) {
        context.inFlight().send(InFlight.Kind.WORK, () -> context.scripts().trySet(lock.keys(), token, leaseMillis),
                (reply, error) -> {
                    if (error != null) {
                        fail(error, true);
                    } else if (reply != null) {
                        onAcquired(0, leaseMillis, 0, sentAt);
                    } else if (!result.isDone()) {
                        // Only while someone still waits for it: a try sent after a close (or a give-up) failed the
                        // result could take the lock for nobody.
                        if (quietable) {
                            subscribeThenTry(sentAt);
                        } else {
                            send(Scripts.Try.FIRST, 0, sentAt);
                        }
                    }
                }, this::failed);
    }

    /**
     * Where the waiter may register quietly and its SET found the key: subscribes first, then sends the script's
     * first try, which finds the subscription and registers the waiter quietly at once. A try before the
     * subscription would have to be followed by another once subscribed, since a grant published in between was not
     * heard. A lock that is free with a fencing counter costs the subscription for nothing; the channel then
     * lingers, and the client's next tries of the lock go straight to the script.
     */
    private void subscribeThenTry(long sentAt) {
        CompletableFuture<Void> subscribed = joinChannel();
        synchronized (this) {
            triedAfter = subscribed;
        }
        context.inFlight().send(InFlight.Kind.WORK, () -> subscribed, (ignored, e) -> {
            if (e != null) {
                fail(e, false);
            } else if (!result.isDone()) {
                send(Scripts.Try.FIRST, 0, sentAt);
            }
        }, this::failed);
    }

    /** Sends a try of this kind and acts on its reply; {@code sentAt} is when the try (or the SET before) was sent. */
    private void send(Scripts.Try kind, int arm, long sentAt) {
        Replicas replicas = lock.replicas();
        if (queued) {
            // Quiet only once this client's subscription is complete: the script's probe then confirms that Redis
            // has it (not so before the resubscription after a reconnect). A probe alone could also be answered by
            // someone else's pattern subscription.
            long quietWait = !quietable || context.notifier().mark(lock.keys(), queued) == null ? Scripts.RENEWING
                    : forever ? -1 : Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - context.ticker().read()));
            context.inFlight().send(InFlight.Kind.WORK, () -> context.scripts().acquireQueued(lock.keys(), token,
                    leaseMillis, kind, arm, grantMillis, context.instanceId(), fair, quietWait), (reply, error) -> {
                        if (error != null) {
                            fail(error, true);
                        } else {
                            onReply(reply, 0, sentAt);
                        }
                    }, this::failed);
        } else if (replicas.required()) {
            context.inFlight().send(InFlight.Kind.WORK, () -> context.scripts().acquire(lock.keys(), token,
                    leaseMillis, kind, replicas), (acked, error) -> {
                        if (error != null) {
                            fail(error, true);
                        } else {
                            onReply(acked.reply(), acked.acks(), sentAt);
                        }
                    }, this::failed);
        } else {
            context.inFlight().send(InFlight.Kind.WORK, () -> context.scripts().acquire(lock.keys(), token,
                    leaseMillis, kind), (reply, error) -> {
                        if (error != null) {
                            fail(error, true);
                        } else {
                            onReply(reply, 0, sentAt);
                        }
                    }, this::failed);
        }
    }

    /**
     * A request that could not be sent, or a callback on a reply that threw: the acquisition fails with it, and
     * nothing is left waiting for a reply that will not come.
     */
    private void failed(Throwable error) {
        fail(error, false);
    }

    /** A try's reply, with the replicas that acknowledged it (0 where none are asked for). */
    private void onReply(Replies.Acquire reply, long acks, long sentAt) {
        if (reply instanceof Replies.Acquired acquired) {
            onAcquired(acquired.fence(), acquired.grantedMillis(), acks, sentAt);
        } else {
            Replies.Held held = (Replies.Held) reply;
            onHeld(held.holderTtlMillis(), held.quiet());
        }
    }

    private void onAcquired(long fence, long grantedMillis, long acks, long sentAt) {
        if (acks < lock.replicas().count()) {
            undo(acks);
        } else {
            grant(fence, sentAt, grantedMillis, (int) acks, null);
        }
    }

    /**
     * A try found the lock held (or free with earlier waiters queued): wait for a wake-up, a grant, the holder's TTL
     * or the deadline.
     *
     * @param quiet whether the try registered this waiter quietly, so that it need not renew its registration
     */
    private void onHeld(long holderTtlMillis, boolean quiet) {
        if (result.isDone()) {
            return;
        }
        result.notDue();
        long now = context.ticker().read();
        if (!waits || (!forever && now - deadline >= 0)) {
            Leaving leaving;
            synchronized (this) {
                // GRANTED: a grant message overtook this try's reply; the lease is on its way.
                if (result.isDone() || phase == Phase.GRANTED || phase == Phase.LEAVING) {
                    return;
                }
                leaving = leave();
            }
            endEmpty(leaving);
            return;
        }
        boolean join = false;
        boolean retry = false;
        CompletableFuture<Void> retryAfter = null;
        Notifier.Mark mark = null;
        synchronized (this) {
            // GRANTED: a grant message overtook this try's reply; the lease is on its way.
            if (result.isDone() || phase == Phase.GRANTED) {
                return;
            }
            move(Phase.IDLE);
            this.quiet = quiet;
            if (standing != Standing.JOINED) {
                join = true;
                mark = markAtSend;
            } else if (woken) {
                retry = true;
            } else if (!quiet && subscription != triedAfter) {
                // Joined, but no try sent since the subscription completed has answered yet: a grant published
                // before it was not heard; try once more when it is complete (at once if it is). A later try that
                // still does not register quietly (Redis does not have the subscription yet, as after a reconnect)
                // renews on the timer.
                retryAfter = subscription;
                triedAfter = subscription;
            } else {
                timer = context.scheduler().schedule(this::timerFired, delay(holderTtlMillis, quiet),
                        TimeUnit.NANOSECONDS);
            }
        }
        watch.waiting();
        if (join) {
            CompletableFuture<Void> joining = joinChannel();
            if (quiet || context.notifier().unbroken(context.notifier().channel(lock.keys(), queued), mark)) {
                // The try found this client listening, or the channel was subscribed without a break since before
                // the try was sent and no release was heard since: wait, as a retry would only fail.
                waitForWake(holderTtlMillis, quiet);
                return;
            }
            synchronized (this) {
                triedAfter = joining;
            }
            retryAfter = joining;
        }
        if (retryAfter != null) {
            CompletableFuture<Void> subscribed = retryAfter;
            context.inFlight().send(InFlight.Kind.WORK, () -> subscribed, (ignored, e) -> {
                if (e != null) {
                    fail(e, false);
                } else {
                    wake();
                }
            }, this::failed);
        } else if (retry) {
            wake();
        }
    }

    /**
     * Joins the lock's channel in this client's notifier, once; returns the subscription. A waiter that left joins
     * no more: a reply that comes after the acquisition ended would otherwise leave it in the channel.
     */
    private CompletableFuture<Void> joinChannel() {
        synchronized (this) {
            if (standing == Standing.JOINED) {
                return subscription;
            }
            if (standing == Standing.LEFT) {
                return CompletableFuture.completedFuture(null);
            }
            stand(Standing.JOINED);
            // The notifier never calls a waiter under its own lock, so this order (waiter, then notifier) cannot
            // deadlock.
            subscription = context.notifier().join(context.notifier().channel(lock.keys(), queued), this);
            return subscription;
        }
    }

    /**
     * Too few replicas acknowledged the grant: a failover could grant the lock again, so give it back and fail.
     */
    private void undo(long acks) {
        int required = lock.replicas().count();
        LockReplicationException failure = new LockReplicationException(lock.describe("acquire") + ": granted but "
                + "acknowledged by " + acks + " of " + required + " replicas within "
                + lock.replicas().timeoutMillis() + " ms; released again", (int) acks, required);
        context.inFlight().sendCleanup(lock.name(), () -> lock.release(token), (reply, e) -> {
            if (e != null) {
                failure.addSuppressed(Errors.translate(e, lock.describe("release after too few acknowledgements")));
            }
            context.notifier().wakeOne(lock.keys(), queued);
            result.completeExceptionally(failure);
        }, e -> {
            failure.addSuppressed(e);
            result.completeExceptionally(failure);
        });
    }

    @Override
    public boolean reserve() {
        synchronized (this) {
            // A handover carries no acknowledgement count, so locks that need one never take it (their waiters do
            // not queue, and nobody asks them). A waiter held back for the holder has not tried; it is not in the
            // notifier's list of held-back waiters any more (Notifier.reserveHead).
            boolean idle = phase == Phase.IDLE && standing == Standing.JOINED;
            boolean heldBack = phase == Phase.HELD_BACK && standing == Standing.NEW && !fair;
            if (result.isDone() || !(idle || heldBack) || lock.replicas().required()) {
                return false;
            }
            move(Phase.RESERVED);
            cancelTimer();
            return true;
        }
    }

    @Override
    public void assigned(long fence, int arm, List<String> upcoming) {
        long sentAt;
        int sent;
        boolean known;
        synchronized (this) {
            sent = arms;
            known = arm >= 0 && arm < sent && arm >= sent - ARMS_KEPT;
            sentAt = known ? armSentAt[arm % ARMS_KEPT] : 0;
        }
        // The lease counts from the sending of the try the grant names: a quiet waiter's may be long past, and a
        // grant's lease counted from it would have run out, or nearly, by the local clock.
        if (known && context.ticker().read() - sentAt <= TimeUnit.MILLISECONDS.toNanos(grantMillis) / 2) {
            grant(fence, sentAt, grantMillis, 0, upcoming);
        } else {
            // Too old to date: the next try finds the lock held by this token and reports its remaining lease,
            // counted from that try's sending.
            LOG.debug("grant of lock '{}' names try {} of {}; trying again", lock.name(), arm, sent);
            wake();
        }
    }

    /**
     * Makes the lease of a grant, once: where waiters queue, a release's announcement and this acquisition's own try
     * may both report the same grant.
     *
     * @param sentAt      when a request was sent that the grant came after
     * @param grantedMillis the lease the grant set, from then
     * @param upcoming    where waiters queue: the tokens queued behind this one, if known
     */
    private void grant(long fence, long sentAt, long grantedMillis, int acks, List<String> upcoming) {
        synchronized (this) {
            // LEAVING: the wait ran out, and the request that leaves the queue passes this grant on.
            if (phase == Phase.GRANTED || phase == Phase.LEAVING) {
                return;
            }
            move(Phase.GRANTED);
        }
        RedisLease lease = new RedisLease(lock, context, token, fence, leaseMillis, renewing, sentAt, acks,
                grantedMillis, upcoming);
        holdsBackFor(token);
        context.watchdog().register(lease);
        deliver(lease);
    }

    /**
     * Tells the notifier that this client holds the lock with a lease of {@code leaseToken}, so that new waiters of
     * this client hold back their first try for it ({@link Notifier#defer}). Called before the lease is handed to the
     * watchdog, whose finding it lost ends the hold-back. The default mode does so only for a renewed lease, whose
     * end is always heard (its release, or its loss).
     */
    private void holdsBackFor(String leaseToken) {
        if (queued && waits && (fair || renewing)) {
            context.notifier().holding(lock.keys(), leaseToken);
        }
    }

    /** Hands a granted lease to the caller; one nobody takes any more (the acquire was cancelled) is given back. */
    private void deliver(RedisLease lease) {
        leaveQueue(false);
        if (!result.complete(Optional.of(lease))) {
            lease.abandon();
        }
    }

    /**
     * A holder of this client passes the lock on without a request, at ticker time {@code now}; called with this
     * waiter reserved.
     *
     * @param upcoming fair mode: the tokens queued behind this waiter, first first, as far as known (else null)
     * @param before   runs once the waiter is committed, before its new lease is handed out: a request sent here
     *                 reaches Redis ahead of any the new holder sends
     * @return the waiter's new lease, or null if this waiter cannot take it so (the holder then releases through
     *         Redis)
     */
    RedisLease takeOver(RedisLease from, long now, List<String> upcoming, Runnable before) {
        synchronized (this) {
            // Only a waiter that a holder reserved is asked; a grant may have come first.
            if (!renewing || phase != Phase.RESERVED) {
                return null;
            }
            move(Phase.GRANTED);
        }
        // The holder's release removes this waiter's registration, in the request that settles it.
        // Recorded before the lease exists: a loss found by its first renewal then ends a hold-back already known.
        holdsBackFor(from.token);
        RedisLease lease = from.successor(now, upcoming);
        before.run();
        deliver(lease);
        return lease;
    }

    @Override
    public void holderChanged(long grantMillis) {
        synchronized (this) {
            if (result.isDone() || phase != Phase.IDLE || timer == null) {
                return;
            }
            long delay = delay(grantMillis, true);
            if (timer.getDelay(TimeUnit.NANOSECONDS) <= delay) {
                return;
            }
            timer.cancel(false);
            timer = context.scheduler().schedule(this::timerFired, delay, TimeUnit.NANOSECONDS);
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

    /**
     * A try goes out now, sent at {@code sentAt}, by this acquisition or by a release that registers it; guarded by
     * this.
     *
     * @return the try's number where waiters queue (its arm), else 0
     */
    private int sending(long sentAt) {
        move(Phase.TRYING);
        woken = false;
        cancelTimer();
        stand(standing.afterTry());
        if (!queued) {
            return 0;
        }
        int arm = arms++;
        armSentAt[arm % ARMS_KEPT] = sentAt;
        return arm;
    }

    /** Guarded by this. */
    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    @Override
    public Registration board(long sentAt) {
        int arm;
        synchronized (this) {
            // Only a waiter that has not tried yet: idle, or held back for the lease whose release asks.
            if (result.isDone() || standing != Standing.NEW || (phase != Phase.IDLE && phase != Phase.HELD_BACK)) {
                return null;
            }
            arm = sending(sentAt);
            markAtSend = context.notifier().mark(lock.keys(), queued);
        }
        return new Registration(token, arm, grantMillis);
    }

    @Override
    public void boarded(boolean registered) {
        if (registered) {
            onHeld(-1, false);
        } else {
            synchronized (this) {
                if (phase == Phase.TRYING) {
                    move(Phase.IDLE);
                }
            }
            wake();
        }
    }

    @Override
    public String token() {
        return token;
    }

    @Override
    public long leaseMillis() {
        return leaseMillis;
    }

    /** After joining an already-subscribed channel: wait like any waiter, unless a wake came meanwhile. */
    private void waitForWake(long holderTtlMillis, boolean quiet) {
        boolean retry;
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            retry = woken;
            if (!retry) {
                timer = context.scheduler().schedule(this::timerFired, delay(holderTtlMillis, quiet),
                        TimeUnit.NANOSECONDS);
            }
        }
        if (retry) {
            wake();
        }
    }

    /** How long to wait for a wake-up before trying again: at most until the holder's TTL or the deadline. */
    private long delay(long holderTtlMillis, boolean quiet) {
        long delay = holderTtlMillis > 0
                ? TimeUnit.MILLISECONDS.toNanos(holderTtlMillis) + ONE_MS
                : TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        if (queued && !(quiet && holderTtlMillis > 0)) {
            delay = Math.min(delay, TimeUnit.MILLISECONDS.toNanos(Scripts.REARM_MILLIS));
        }
        if (!forever) {
            delay = Math.min(delay, deadline - context.ticker().read());
        }
        return Math.max(delay, 0);
    }

    private void fail(Throwable error, boolean mayHaveAcquired) {
        LockException failure = Errors.translate(error, lock.describe("acquire"));
        if (mayHaveAcquired && !(queued && waits)
                && (failure instanceof LockTimeoutException || failure instanceof LockConnectionException)) {
            // The script may have run although no answer came back: release by token so the lock is not held
            // until its lease ends by nobody. (A fair waiter does so when it leaves the queue.)
            releaseInBackground("clean-up of failed acquire");
        }
        result.completeExceptionally(failure);
    }

    /**
     * What leaving takes, decided under the monitor ({@link #departure}): whether to leave the lock's channel, and
     * whether to leave the queue in Redis with one request.
     */
    private record Leaving(boolean wasJoined, boolean deregister) {
    }

    /**
     * The wait ran out (or the acquire made its one try): moves to {@link Phase#LEAVING}, which refuses any grant
     * from now on, and leaves. Guarded by this.
     */
    private Leaving leave() {
        move(Phase.LEAVING);
        return departure(true);
    }

    /**
     * Stands {@link Standing#LEFT}; where a try may have registered this waiter and no grant made it the holder, it
     * leaves the queue too if it passes wake-ups on (it gives up, rather than takes the lock). Guarded by this.
     */
    private Leaving departure(boolean passWake) {
        cancelTimer();
        Leaving leaving = new Leaving(standing == Standing.JOINED, passWake && registered() && phase != Phase.GRANTED);
        stand(Standing.LEFT);
        return leaving;
    }

    /**
     * Ends a waiter that {@link #leave left} without the lock, once its request to leave the queue (if any) has
     * answered: that request passes on a grant that reached it meanwhile, so an empty result means that nothing of
     * this acquisition holds the lock, and a multi-lock's acquire that ends empty holds none of its parts. If the
     * request fails, the result is still empty, and a grant that reached the waiter expires with its lease.
     */
    private void endEmpty(Leaving leaving) {
        depart(leaving, true, () -> result.complete(Optional.empty()));
    }

    /** Leaves the channel and the queue as {@link #departure} decides, for an acquisition that is over. */
    private void leaveQueue(boolean passWake) {
        Leaving leaving;
        synchronized (this) {
            leaving = departure(passWake);
        }
        depart(leaving, passWake, () -> { });
    }

    /**
     * Does what {@code leaving} says: leaves the channel (passing a wake-up on, or not) and the queue; then runs
     * {@code then}, once the request that leaves the queue has answered (or at once if none is sent). That request
     * releases by token, so it also passes on a grant that reached this waiter meanwhile.
     */
    private void depart(Leaving leaving, boolean passWake, Runnable then) {
        if (leaving.wasJoined()) {
            context.notifier().leave(context.notifier().channel(lock.keys(), queued), this, passWake);
        }
        if (leaving.deregister()) {
            context.inFlight().sendCleanupThen(lock.name(), "leaving the queue", () -> lock.release(token), then);
        } else {
            then.run();
        }
    }

    /**
     * Releases by this acquisition's token, in the background: a clean-up nobody waits for. A failure is logged
     * only, since the lock (or registration) then expires on its own.
     */
    private void releaseInBackground(String purpose) {
        context.inFlight().sendCleanupThen(lock.name(), purpose, () -> lock.release(token), () -> { });
    }
}
