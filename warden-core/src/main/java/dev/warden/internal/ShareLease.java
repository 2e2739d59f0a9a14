package dev.warden.internal;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import dev.warden.Ticker;

/**
 * A lease on permits of a shared lock ({@link ShareLock}): a semaphore's permits, a read lock or a write lock. Its
 * fencing token is issued with the grant, so asking for it costs no request.
 */
final class ShareLease extends LeaseBase {
    private final ShareLock share;
    private final String token;
    private final long fence;
    private final long permits;
    /** The thread that acquired it: a read-write lock's downgrade and upgrade check are per thread. */
    private final Thread owner;
    private final int acks;

    /**
     * @param sentAt        when a request was sent that the grant came after: the lease started no earlier
     * @param grantedMillis the lease the grant set (a short first lease for a waiter, which renewals extend)
     */
    ShareLease(ShareLock share, String token, long fence, long permits, long leaseMillis, boolean renewing,
               long sentAt, long grantedMillis, Thread owner, int acks) {
        super(leaseMillis, renewing, sentAt, grantedMillis);
        this.acks = acks;
        this.share = share;
        this.token = token;
        this.fence = fence;
        this.permits = permits;
        this.owner = owner;
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
    LockKeys keys() {
        return LockKeys.of(share.client().config().keyPrefix(), share.name());
    }

    @Override
    String token() {
        return token;
    }

    @Override
    public String lockName() {
        return share.name();
    }

    @Override
    public long fencingToken() {
        return fence;
    }

    @Override
    public CompletableFuture<Long> fencingTokenAsync() {
        return CompletableFuture.completedFuture(fence);
    }

    @Override
    long knownFence() {
        return fence;
    }

    @Override
    public int acknowledgements() {
        return acks;
    }

    @Override
    CompletableFuture<Boolean> releaseRequest() {
        return share.client().inFlight().track(InFlight.Kind.CLEANUP, () -> {
            if (!beginRelease()) {
                return CompletableFuture.completedFuture(false);
            }
            forget();
            return finishRelease(() -> share.release(token), "it was found ended or forced out on release");
        });
    }

    @Override
    CompletableFuture<Boolean> expireRequest(long millis, String operation) {
        return share.client().inFlight().track(InFlight.Kind.WORK,
                () -> share.expire(token, millis));
    }

    @Override
    void moveDeadline(long sentAt, long millis) {
        share.client().shareWatchdog().expiresAfter(this, sentAt, millis);
    }

    /** A release that leaves the share to end after {@code keepMillis}; waiters get it when it ends. */
    @Override
    CompletableFuture<Boolean> releaseKeepingRequest(long keepMillis) {
        return share.client().inFlight().track(InFlight.Kind.CLEANUP, () -> {
            if (!beginRelease()) {
                return CompletableFuture.completedFuture(false);
            }
            forget();
            return finishRelease(() -> share.expire(token, keepMillis),
                    "it was found ended or forced out on release");
        });
    }

    @Override
    <T> T await(CompletableFuture<T> future, String operation) {
        return share.client().await(future, share.describe(operation));
    }

    @Override
    <T> CompletableFuture<T> publish(Supplier<CompletableFuture<T>> request, String operation) {
        return Futures.publish(request, share.client().callbackExecutor(), share.describe(operation));
    }

    /** Releases in the background a lease nobody will use; false if the release failed (it then ends by itself). */
    @Override
    CompletableFuture<Boolean> abandon() {
        return abandonWith(share.client().inFlight(), this::forget, () -> share.release(token), () -> { });
    }

    /** Stops renewals, and the thread no longer holds it for the downgrade and upgrade checks. */
    private void forget() {
        share.client().shareWatchdog().unregister(this);
        share.client().threadShares().remove(this);
    }

    @Override
    Ticker ticker() {
        return share.client().ticker();
    }

    @Override
    Events events() {
        return share.client().events();
    }

    @Override
    void runCallback(Runnable callback) {
        share.client().runCallback(callback);
    }

    @Override
    void afterLoss() {
        share.client().threadShares().remove(this);
    }

    @Override
    public String toString() {
        return "Lease{" + share.name() + ", permits=" + permits + ", fence=" + fence + ", held=" + isHeld() + "}";
    }
}
