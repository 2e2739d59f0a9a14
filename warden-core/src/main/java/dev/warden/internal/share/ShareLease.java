package dev.warden.internal.share;

import dev.warden.internal.base.Errors;
import dev.warden.internal.lease.LeaseBase;
import dev.warden.internal.script.LockKeys;
import dev.warden.internal.script.Replies;
import dev.warden.internal.script.ShareKeys;
import dev.warden.internal.wire.InFlight;
import dev.warden.internal.wire.Replicas;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A lease on permits of a shared lock ({@link ShareLock}): a semaphore's permits, a read lock or a write lock. Its
 * fencing token is issued with the grant, so asking for it costs no request; a lease that took its share over from
 * another of its client (a local handover, {@link #handOverLocally}) gets it from the script that settles the
 * handover, which is in flight already.
 *
 * <p>A release hands the share over locally when the waiter that is the queue's next in line in Redis is of this
 * client and fits ({@link ShareWaiters#reserveNext}), and enough of the lease is left ({@link #halfLeft}): that
 * waiter's new lease keeps this lease's deadline and renewals under its own token, at once, and
 * {@code share-handed.lua} then moves the share to its token in Redis, with the same end, and issues its fence.
 */
final class ShareLease extends LeaseBase {
    private final ShareLock share;
    private final ShareContext context;
    private final String token;
    /**
     * The fence once known: at the grant, or when the script that settles the handover to this lease answered;
     * 0 until then.
     */
    private volatile long fence;
    /**
     * For a lease taken over locally: completes with its fence when the handover is settled, or fails (it was lost
     * then, or the settling failed); null for a lease that Redis granted, whose fence is known at once.
     */
    private final CompletableFuture<Long> fenceSettled;
    private final long permits;
    /** The thread that acquired it: a read-write lock's downgrade and upgrade check are per thread. */
    private final Thread owner;
    private final int acks;

    /**
     * @param share         the shared lock it holds a share of: its name, keys, kind and replicas
     * @param context       what it uses of its client: scripts, waiters, in-flight requests, watchdog, clock
     * @param sentAt        when a request was sent that the grant came after: the lease started no earlier
     * @param grantedMillis the lease the grant set (a short first lease for a waiter, which renewals extend)
     */
    ShareLease(ShareLock share, ShareContext context, String token, long fence, long permits, long leaseMillis,
               boolean renewing, long sentAt, long grantedMillis, Thread owner, int acks) {
        super(leaseMillis, renewing, sentAt, grantedMillis);
        this.acks = acks;
        this.share = share;
        this.context = context;
        this.token = token;
        this.fence = fence;
        this.permits = permits;
        this.owner = owner;
        this.fenceSettled = null;
    }

    /**
     * The lease of a waiter of this client that takes a share over from {@code from} at {@code now}: its own token,
     * permits and thread; the same lease and deadline. Its fence comes with the script that settles the handover.
     */
    private ShareLease(ShareLease from, String token, long permits, Thread owner, long now) {
        super(from, now);
        this.acks = 0;
        this.share = from.share;
        this.context = from.context;
        this.token = token;
        this.permits = permits;
        this.owner = owner;
        this.fenceSettled = new CompletableFuture<>();
    }

    /**
     * The lease that takes this lease's share over locally ({@link ShareAcquisition#takeOver}). The watchdog gets it
     * only once the script that moves the share is sent ({@link #handOverLocally}).
     */
    ShareLease successor(String token, long permits, Thread owner, long now) {
        return new ShareLease(this, token, permits, owner, now);
    }

    ShareKeys shareKeys() {
        return share.keys();
    }

    Thread owner() {
        return owner;
    }

    Replicas replicas() {
        return share.replicas();
    }

    /** @return whether it holds the whole capacity: a read-write lock's writer */
    boolean whole() {
        return permits >= share.capacity();
    }

    @Override
    public LockKeys keys() {
        return LockKeys.of(context.config().keyPrefix(), share.name());
    }

    @Override
    public String token() {
        return token;
    }

    @Override
    public String lockName() {
        return share.name();
    }

    @Override
    public long fencingToken() {
        long known = fence;
        return known != 0 || fenceSettled == null ? known : await(fenceSettled, "fencing token");
    }

    @Override
    public CompletableFuture<Long> fencingTokenAsync() {
        long known = fence;
        return known != 0 || fenceSettled == null ? CompletableFuture.completedFuture(known)
                : publish(() -> fenceSettled, "fencing token");
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
        return context.inFlight().track(InFlight.Kind.CLEANUP, () -> {
            if (!beginRelease()) {
                return CompletableFuture.completedFuture(false);
            }
            forget();
            CompletableFuture<Boolean> handed = handOverLocally();
            return handed != null ? handed
                    : finishRelease(() -> share.release(token), "it was found ended or forced out on release")
                            .whenComplete((held, error) -> {
                                // Unknown whether it ran (it timed out, maybe unwritten): the close sends it again.
                                if (error != null && InFlight.uncertain(error)) {
                                    context.inFlight().unsettled(share.name(), () -> share.release(token));
                                }
                            });
        });
    }

    /**
     * Hands this lease's share over to the waiters of this client that are the queue's next in line, as many as fit
     * in it (one permit to one, or a writer's to the readers behind it), without waiting for Redis; only for renewed
     * leases without replica acknowledgements (a handover carries none), and only while at least half of a grant's
     * lease is left, so that Redis surely still holds the share unless it lost it. The release then ends by the
     * script that moves the share ({@link #settle}), sent before any new lease is handed out.
     *
     * @return null if nobody took the share over (release through Redis), else this release's result
     */
    private CompletableFuture<Boolean> handOverLocally() {
        long now = context.ticker().read();
        if (!renewing || share.replicas().required() || !halfLeft(now)) {
            return null;
        }
        List<ShareAcquisition> reserved = context.waiters().reserveNext(share.keys(), permits, leaseMillis);
        if (reserved.isEmpty()) {
            return null;
        }
        List<ShareAcquisition> takers = new ArrayList<>(reserved.size());
        List<ShareLease> successors = new ArrayList<>(reserved.size());
        for (ShareAcquisition waiter : reserved) {
            ShareLease successor = waiter.takeOver(this, now);
            if (successor != null) {
                takers.add(waiter);
                successors.add(successor);
            } else {
                // A grant reached it first, or it gave up: it holds its own share, or none.
                waiter.unreserve();
            }
        }
        if (successors.isEmpty()) {
            return null;
        }
        List<Map.Entry<String, Long>> moving = new ArrayList<>(takers.size());
        for (ShareAcquisition taker : takers) {
            moving.add(Map.entry(taker.token(), taker.permits()));
        }
        CompletableFuture<Optional<long[]>> moved = new CompletableFuture<>();
        context.inFlight().send(InFlight.Kind.CLEANUP,
                () -> context.scripts().handed(share.keys(), share.kind(), token,
                        context.instanceId(), moving), (reply, error) -> {
                    if (error != null) {
                        moved.completeExceptionally(error);
                    } else {
                        moved.complete(reply);
                    }
                }, moved::completeExceptionally);
        // Only now may the watchdog renew the successors: their tokens hold nothing in Redis until that script has
        // run, and a renewal sent before it (at once, if this lease's renewal is on its way) would find them lost.
        // Requests on one connection run in order.
        for (ShareLease successor : successors) {
            context.watchdog().handOver(this, successor);
        }
        for (int i = 0; i < takers.size(); i++) {
            takers.get(i).deliver(successors.get(i));
        }
        return settle(successors, moved);
    }

    /**
     * Ends this release after a local handover by what the script that moved the share found: released, with each
     * successor's fence issued; or, if this lease's share was gone (Redis lost it, or it was forced out), every lease
     * lost, since a handover must not hide a lost share. If the script failed, nobody knows whether the share moved,
     * so the successors are lost too: Redis keeps the share until this lease's end at the latest, so no permit is
     * lent twice meanwhile.
     */
    private CompletableFuture<Boolean> settle(List<ShareLease> successors, CompletableFuture<Optional<long[]>> moved) {
        return moved.handle((fences, error) -> {
            if (error != null) {
                released();
                String reason = "the request that settled its handover failed: " + Errors.unwrap(error);
                successors.forEach(successor -> successor.settled(0, reason));
                throw Errors.completion(error);
            }
            if (fences.isEmpty()) {
                String reason = "it was found ended or forced out when handed over";
                lose(reason);
                successors.forEach(successor -> successor.settled(0, reason));
                return false;
            }
            for (int i = 0; i < successors.size(); i++) {
                long fence = fences.get()[i];
                successors.get(i).settled(fence, fence == Replies.NOT_TAKEN_OVER
                        ? "the semaphore's permits were lowered below those in use" : null);
            }
            releasedHeld();
            return true;
        });
    }

    /** The handover to this lease was settled: its fence, or, with {@code lostBecause}, it is lost. */
    private void settled(long issued, String lostBecause) {
        if (lostBecause == null) {
            fence = issued;
            fenceSettled.complete(issued);
            return;
        }
        loseUnlessReleasing(lostBecause);
        fenceSettled.completeExceptionally(ended("fencing token"));
    }

    @Override
    public CompletableFuture<Boolean> expireRequest(long millis, String operation) {
        return context.inFlight().track(InFlight.Kind.WORK,
                () -> share.expire(token, millis));
    }

    @Override
    public CompletableFuture<Boolean> heldRequest() {
        return context.inFlight().track(InFlight.Kind.WORK,
                () -> context.scripts().held(share.keys(), token));
    }

    @Override
    public void moveDeadline(long sentAt, long millis) {
        context.watchdog().expiresAfter(this, sentAt, millis);
    }

    /** A release that leaves the share to end after {@code keepMillis}; waiters get it when it ends. */
    @Override
    public CompletableFuture<Boolean> releaseKeepingRequest(long keepMillis) {
        return context.inFlight().track(InFlight.Kind.CLEANUP, () -> {
            if (!beginRelease()) {
                return CompletableFuture.completedFuture(false);
            }
            forget();
            return finishRelease(() -> share.expire(token, keepMillis),
                    "it was found ended or forced out on release");
        });
    }

    /** Releases in the background a lease nobody will use; false if the release failed (it then ends by itself). */
    @Override
    public CompletableFuture<Boolean> abandon() {
        return abandonWith(context.inFlight(), this::forget, () -> share.release(token), () -> { });
    }

    /** Stops renewals, and the thread no longer holds it for the downgrade and upgrade checks. */
    private void forget() {
        context.watchdog().unregister(this);
        context.threadShares().remove(this);
    }

    @Override
    public ShareContext context() {
        return context;
    }

    @Override
    public String describe(String operation) {
        return share.describe(operation);
    }

    @Override
    public void afterLoss() {
        context.threadShares().remove(this);
    }

    @Override
    public String toString() {
        return "Lease{" + share.name() + ", permits=" + permits + ", fence=" + fence + ", held=" + isHeld() + "}";
    }
}
