package dev.warden.internal.lock;

import dev.warden.internal.base.Errors;
import dev.warden.internal.base.Futures;
import dev.warden.internal.lease.LeaseBase;
import dev.warden.internal.script.LockKeys;
import dev.warden.internal.script.Replies;
import dev.warden.internal.wait.Notifier;
import dev.warden.internal.wire.InFlight;
import dev.warden.internal.wire.Replicas;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** A lease on one lock: HELD until released or lost, then never again. */
public final class RedisLease extends LeaseBase {
    /** Local handovers in a row before a release goes to Redis again. */
    static final int MAX_LOCAL_HANDOVERS = 8;
    /** How long after the first of them local handovers in a row may go on. */
    static final long LOCAL_RUN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final RedisLock lock;
    private final LockContext context;
    final LockKeys keys;
    final String token;
    final Replicas replicas;
    /** 0 until a fence is issued: at the acquire, or at the first {@link #fencingToken()}. */
    private volatile long fence;
    /**
     * Guards {@link #fenceRequest} and the setting of {@link #fence}, against a local handover, which reads the fence
     * for its successor's {@link #predecessorFence}; not the lease's own monitor, which a loss takes on a client
     * thread.
     */
    private final Object fenceLock = new Object();
    /**
     * The request for this lease's fence while one is in flight, shared by every caller who asks meanwhile; null
     * otherwise. No local handover takes the lock over from a lease with a fence request in flight, since the
     * successor's {@link #predecessorFence} must cover the fence it brings. Guarded by {@link #fenceLock}.
     */
    private CompletableFuture<Long> fenceRequest;
    /**
     * The predecessor's fence, which this lease's own must exceed: that of the lease of this client it took the lock
     * over from, with the same token ({@link #handOverLocally}), or that lease's predecessor's fence if it had none;
     * 0 for a lease that Redis granted.
     */
    private final long predecessorFence;
    /** How many local handovers in a row led to this lease: 0 for a lease that Redis granted. */
    private final int handovers;
    /** When the first of the local handovers that led to this lease happened (with {@code handovers > 0}). */
    private final long handedFrom;
    private final int acks;
    /**
     * Fair mode: the first tokens queued behind this lease, first first, where a release or local handover of this
     * client told it (null if unknown). If the first is a waiter of this client, the release passes the lock on
     * locally ({@link #passOnFair}). The queue grows only at its tail, and only this client's holder removes its
     * head, so the list stays a true prefix of the queue while this lease holds the lock.
     */
    private volatile List<String> upcoming;

    /**
     * @param lock          the lock it holds: its name, keys, mode and replicas
     * @param context       what it uses of its client: scripts, notifier, in-flight requests, watchdog, clock
     * @param leaseMillis   the lease that renewals set
     * @param sentAt        when a request was sent that the grant came after: the lease started no earlier
     * @param grantedMillis the lease the grant set (shorter than {@code leaseMillis} for a fair grant, which the
     *                      first renewal extends)
     * @param upcoming      fair mode: the tokens queued behind this lease, if a release of this client told them
     */
    public RedisLease(RedisLock lock, LockContext context, String token, long fence, long leaseMillis,
                      boolean renewing, long sentAt, int acks, long grantedMillis, List<String> upcoming) {
        super(leaseMillis, renewing, sentAt, grantedMillis);
        this.lock = lock;
        this.context = context;
        this.replicas = lock.replicas();
        this.acks = acks;
        this.keys = lock.keys();
        this.token = token;
        this.fence = fence;
        this.upcoming = upcoming;
        this.predecessorFence = 0;
        this.handovers = 0;
        this.handedFrom = 0;
    }

    /** The lease of a waiter of this client that takes the lock over from {@code from}: same token and deadline. */
    private RedisLease(RedisLease from, long now, List<String> upcoming) {
        super(from, now);
        this.upcoming = upcoming;
        this.lock = from.lock;
        this.context = from.context;
        this.replicas = from.replicas;
        this.acks = 0;
        this.keys = from.keys;
        this.token = from.token;
        this.predecessorFence = Math.max(from.fence, from.predecessorFence);
        this.handovers = from.handovers + 1;
        this.handedFrom = from.handovers == 0 ? now : from.handedFrom;
    }

    @Override
    public LockKeys keys() {
        return keys;
    }

    @Override
    public String token() {
        return token;
    }

    @Override
    public String lockName() {
        return lock.name();
    }

    @Override
    public long fencingToken() {
        long known = fence;
        return known != 0 ? known : await(requestFence(), "fencing token");
    }

    @Override
    public CompletableFuture<Long> fencingTokenAsync() {
        long known = fence;
        return known != 0 ? CompletableFuture.completedFuture(known) : publish(this::requestFence, "fencing token");
    }

    /**
     * Asks Redis for the fence of a lease acquired without one: one request at a time per lease, whose answer every
     * caller that asks meanwhile shares.
     *
     * @throws IllegalStateException if the lease was released, {@link dev.warden.LeaseLostException} if lost
     */
    private CompletableFuture<Long> requestFence() {
        CompletableFuture<Long> pending;
        synchronized (fenceLock) {
            if (fence != 0) {
                return CompletableFuture.completedFuture(fence);
            }
            if (fenceRequest != null) {
                return fenceRequest;
            }
            if (!active()) {
                throw ended("fencing token");
            }
            pending = new CompletableFuture<>();
            fenceRequest = pending;
        }
        context.inFlight().send(InFlight.Kind.WORK, () -> context.scripts().fence(keys, token, predecessorFence),
                (issued, error) -> settleFence(pending, issued, error), error -> settleFence(pending, null, error));
        return pending;
    }

    /** The answer to {@link #requestFence}: the fence, a lease found gone (lost), or a failure. */
    private void settleFence(CompletableFuture<Long> pending, OptionalLong issued, Throwable error) {
        boolean found = error == null && issued.isPresent();
        synchronized (fenceLock) {
            if (found) {
                fence = issued.getAsLong();
            }
            if (fenceRequest == pending) {
                fenceRequest = null;
            }
        }
        if (error != null) {
            pending.completeExceptionally(error);
        } else if (!found) {
            // A release that started meanwhile may be what removed it, and its own reply decides.
            loseUnlessReleasing("it was found expired or taken when asked for its fencing token");
            pending.completeExceptionally(ended("fencing token"));
        } else {
            pending.complete(issued.getAsLong());
        }
    }

    @Override
    public long knownFence() {
        return fence;
    }

    @Override
    public int acknowledgements() {
        return acks;
    }

    @Override
    public CompletableFuture<Boolean> releaseRequest() {
        return context.inFlight().track(InFlight.Kind.CLEANUP,
                () -> beginRelease() ? releaseHeld() : CompletableFuture.completedFuture(false));
    }

    @Override
    public CompletableFuture<Boolean> expireRequest(long millis, String operation) {
        return context.inFlight().track(InFlight.Kind.WORK,
                () -> context.scripts().expire(keys, token, millis, replicas));
    }

    @Override
    public CompletableFuture<Boolean> heldRequest() {
        return context.inFlight().track(InFlight.Kind.WORK, () -> context.scripts().held(keys, token));
    }

    @Override
    public void moveDeadline(long sentAt, long millis) {
        context.watchdog().expiresAfter(this, sentAt, millis);
    }

    /**
     * A release that leaves the key to expire after {@code keepMillis}: no grant, no local handover. Waiters, this
     * client's too, find the lock held until then, and the first of them to try after it expires takes it.
     */
    @Override
    public CompletableFuture<Boolean> releaseKeepingRequest(long keepMillis) {
        return context.inFlight().track(InFlight.Kind.CLEANUP, () -> {
            if (!beginRelease()) {
                return CompletableFuture.completedFuture(false);
            }
            context.watchdog().unregister(this);
            return finishRelease(() -> context.scripts().expire(keys, token, keepMillis, replicas),
                    "it was found expired or taken on release").whenComplete((held, error) -> {
                        // This lease holds no waiter of this client back any more, whatever the answer: one held
                        // back tries on its own and learns how long the lock stays held.
                        if (lock.queued()) {
                            context.notifier().ended(keys, token);
                        }
                    }).thenApply(held -> {
                        // A local waiter tries now and learns how long the lock stays held.
                        context.notifier().wakeOne(keys, lock.queued());
                        return held;
                    });
        });
    }

    /** The release that {@link #beginRelease()} started: through Redis, or a local handover. */
    private CompletableFuture<Boolean> releaseHeld() {
        // A release whose outcome is unknown (it timed out, maybe unwritten) is sent again by the client's close.
        return releaseHeldOnce().whenComplete((held, error) -> {
            if (error != null && InFlight.uncertain(error)) {
                context.inFlight().unsettled(lock.name(), () -> lock.release(token));
            }
        });
    }

    private CompletableFuture<Boolean> releaseHeldOnce() {
        context.watchdog().unregister(this);
        if (lock.fair()) {
            return releaseFair();
        }
        if (lock.queued()) {
            return handOverOrGrant();
        }
        // Replica acknowledgements: waiters do not queue, and none can take a lease over (Acquisition#reserve).
        return finishRelease(() -> context.scripts().release(keys, token, context.instanceId()),
                "it was found expired or taken on release").thenApply(held -> {
                    context.notifier().wakeOne(keys, false);
                    return held;
                });
    }

    /**
     * Passes the lock to a reserved waiter of this client without waiting for Redis: the waiter's lease keeps this
     * lease's token and deadline, and the watchdog renews it from there; this release then waits for one request
     * that removes the waiter's registration and says whether Redis still held the token. Only while enough of the
     * lease is left ({@link #halfLeft}), so that the key surely still holds it unless Redis lost it (which that
     * request then reports), and only for renewed leases of the same length, which is what the waiter asked for.
     * Other clients' waiters are not known here, so at most {@value #MAX_LOCAL_HANDOVERS} handovers in a row, within
     * {@link #LOCAL_RUN_NANOS} of the first of them, go this way; then a release goes to Redis, which gives other
     * clients their turn.
     *
     * @param now when, by the ticker, {@link #mayHandOver} allowed it
     * @return null if the waiter did not take the lock over (release through Redis), else this release's result
     *         ({@link #settleHandover})
     */
    private CompletableFuture<Boolean> handOverLocally(Notifier.Waiter waiter, long now) {
        if (waiter.leaseMillis() != leaseMillis) {
            return null;
        }
        RedisLease successor;
        CompletableFuture<Boolean> check = new CompletableFuture<>();
        // Not with a fence request in flight: the successor must know the fence it brings (predecessorFence).
        synchronized (fenceLock) {
            successor = fenceRequest != null ? null : takeOver(waiter, now, null, () -> sendCheck(check,
                    () -> context.scripts().handed(keys, token, waiter.token())));
        }
        if (successor == null) {
            return null;
        }
        return settleHandover(successor, check);
    }

    /** The waiter's new lease if it takes the lock over ({@link Acquisition#takeOver}): single locks' waiters can. */
    private RedisLease takeOver(Notifier.Waiter waiter, long now, List<String> upcoming, Runnable before) {
        return waiter instanceof Acquisition next ? next.takeOver(this, now, upcoming, before) : null;
    }

    /** Whether the default mode's bounds on local handovers let this lease pass the lock on locally now. */
    private boolean mayHandOver(long now) {
        return renewing && handovers < MAX_LOCAL_HANDOVERS && (handovers == 0 || now - handedFrom <= LOCAL_RUN_NANOS)
                && halfLeft(now);
    }

    /**
     * The default mode's release where waiters queue in Redis ({@link RedisLock#queued}): a local handover to the
     * next waiter of this client ({@link Notifier#reserveHead}: the first that tried, else the first held back for
     * this lease without a request) within the bounds of {@link #handOverLocally}, whose settling script also
     * removes the waiter's registration from the queue; else a release through Redis, which registers the waiters
     * held back for this lease behind everyone queued and grants the lock to the oldest waiter of any client, so that
     * after at most {@value #MAX_LOCAL_HANDOVERS} local handovers the others get their turn in the order they came.
     */
    private CompletableFuture<Boolean> handOverOrGrant() {
        long now = context.ticker().read();
        Notifier.Waiter waiter = mayHandOver(now) ? context.notifier().reserveHead(keys) : null;
        if (waiter != null) {
            CompletableFuture<Boolean> handed = handOverLocally(waiter, now);
            if (handed != null) {
                return handed;
            }
            // It could not take a lease over (it asked for another lease, or none renewed): it tries again, and the
            // release below may grant it the lock in its turn.
            waiter.unreserve();
        }
        return releaseGranting();
    }

    /**
     * Sends the request that settles a local handover into {@code check}, before the new holder gets its lease:
     * requests on the one connection run in order, so the new holder's own release cannot reach Redis first and
     * make the key look lost.
     */
    private <T> void sendCheck(CompletableFuture<T> check, Supplier<CompletableFuture<T>> request) {
        context.inFlight().send(InFlight.Kind.CLEANUP, request, (reply, e) -> {
            if (e != null) {
                check.completeExceptionally(e);
            } else {
                check.complete(reply);
            }
        }, check::completeExceptionally);
    }

    /**
     * Settles this lease's release after a local handover, by the request that followed it: the new holder has
     * the lock at once, and the release ends when Redis says whether the key still held the token. Only Redis can
     * tell whether it lost the lock meanwhile (a restart without its data, a failover), and a release must not
     * report a lock it no longer held as released; if so, both leases are lost.
     *
     * @return completes with whether the key still held the token
     */
    private CompletableFuture<Boolean> settleHandover(RedisLease successor, CompletableFuture<Boolean> check) {
        return check.handle((held, error) -> {
            if (error != null) {
                released();
                throw Errors.completion(error);
            }
            if (!held) {
                String reason = "it was found expired or taken when handed over";
                lose(reason);
                successor.loseUnlessReleasing(reason);
                return false;
            }
            releasedHeld();
            return true;
        });
    }

    /**
     * The lease that takes the lock over from this one, registered with the watchdog in this lease's place. Its
     * fence is issued when asked for, above this lease's.
     */
    RedisLease successor(long now, List<String> upcoming) {
        RedisLease next = new RedisLease(this, now, upcoming);
        context.watchdog().handOver(this, next);
        return next;
    }

    /**
     * Fair mode: if the waiter that heads the queue is of this client, it takes the lock over without a request,
     * as in the default mode's local handover and under the same conditions, but with no bound on how many in a
     * row: it is the next waiter in Redis's order, so nobody is passed over. This release then waits for a script
     * that removes the waiter's registration, registers the waiters held back for this lease, lists the queue's
     * first waiters again for the new holder, and says whether Redis still held the token
     * ({@link #settleHandover}). Requests on the one connection run in order, so a release that follows finds the
     * registration gone.
     *
     * @return null if the waiter did not take the lock over (release through Redis), else this release's result
     */
    private CompletableFuture<Boolean> passOnFair() {
        List<String> queued = upcoming;
        if (queued == null || queued.isEmpty() || !renewing) {
            return null;
        }
        String next = queued.get(0);
        long now = context.ticker().read();
        if (!halfLeft(now)) {
            return null;
        }
        Notifier.Waiter waiter = context.notifier().waiting(next);
        if (waiter == null || waiter.leaseMillis() != leaseMillis || !waiter.reserve()) {
            return null;
        }
        RedisLease successor;
        CompletableFuture<List<String>> consumed = new CompletableFuture<>();
        CompletableFuture<Boolean> check = consumed.thenApply(queue -> queue != null);
        // Not with a fence request in flight: the successor must know the fence it brings (predecessorFence).
        synchronized (fenceLock) {
            successor = fenceRequest != null ? null : takeOver(waiter, now, queued.subList(1, queued.size()),
                    () -> sendCheck(consumed,
                            () -> lock.consumeFair(token, next, context.notifier().passOn(keys, token))));
        }
        if (successor == null) {
            waiter.unreserve();
            return null;
        }
        Futures.whenDone(consumed, (queue, error) -> {
            if (queue != null && successor.active()) {
                // Later than what the successor was given, and also exact: it lists waiters registered since.
                successor.queuedBehind(queue);
            }
        }, "the queue after a handover", lock.name());
        return settleHandover(successor, check);
    }

    /** Fair mode: the release script grants the lock to the oldest waiter itself, and tells it. */
    private CompletableFuture<Boolean> releaseFair() {
        CompletableFuture<Boolean> passed = passOnFair();
        return passed != null ? passed : releaseGranting();
    }

    /** A release through Redis where waiters queue: the script grants the lock to the oldest waiter, and tells it. */
    private CompletableFuture<Boolean> releaseGranting() {
        CompletableFuture<Replies.Release> reply;
        try {
            // Waiters of this client held back for this lease (Notifier#defer) register in this release.
            List<Notifier.Waiter> held = context.notifier().board(keys, token);
            reply = lock.releaseQueued(token, held);
        } catch (RuntimeException e) {
            released();
            throw e;
        }
        return reply.handle((status, error) -> {
            if (error != null) {
                released();
                throw Errors.completion(error);
            }
            if (!status.held()) {
                lose("it was found expired or taken on release");
                return false;
            }
            releasedHeld();
            if (status == Replies.Outcome.RELEASED) {
                // No waiter was registered; one of this client may be about to register, and must try again.
                context.notifier().wakeOne(keys, true);
            }
            return true;
        });
    }

    @Override
    public String toString() {
        return "Lease{lock=" + lock.name() + ", fence=" + fence + ", held=" + isHeld() + "}";
    }

    /**
     * Releases in the background a lease nobody will use any more: one granted to a cancelled acquire, or one
     * still held when the client closes. A failure is logged, since nobody is left to tell; the lock then expires
     * at the end of its lease.
     *
     * @return completes with false if the release failed, true otherwise (also when another release came first)
     */
    @Override
    public CompletableFuture<Boolean> abandon() {
        return abandonWith(context.inFlight(), () -> context.watchdog().unregister(this), () -> lock.release(token),
                () -> context.notifier().wakeOne(keys, lock.queued()));
    }

    @Override
    public LockContext context() {
        return context;
    }

    @Override
    public String describe(String operation) {
        return lock.describe(operation);
    }

    @Override
    public void afterLoss() {
        if (lock.queued()) {
            context.notifier().ended(keys, token);
        }
        context.notifier().wakeOne(keys, lock.queued());
    }

    /** Fair mode: the tokens now known to be queued behind this lease, first first. */
    private void queuedBehind(List<String> queue) {
        upcoming = queue;
    }
}
