package dev.warden.internal.share;

import dev.warden.DistributedSemaphore;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.SemaphoreInfo;
import dev.warden.internal.base.Errors;
import dev.warden.internal.base.Require;
import dev.warden.internal.script.ShareKeys;
import dev.warden.internal.script.ShareScripts;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/** A semaphore of one client: each request size is a {@link ShareView} of its {@link ShareLock}. Stateless. */
public final class RedisSemaphore implements DistributedSemaphore {
    private final ShareLock share;
    private final int permits;

    public RedisSemaphore(ShareContext context, String name, int permits) {
        this(new ShareLock(context, name, ShareKeys.Kind.SEMAPHORE, permits), permits);
    }

    private RedisSemaphore(ShareLock share, int permits) {
        this.share = share;
        this.permits = permits;
    }

    @Override
    public DistributedSemaphore withReplicaAcks(int replicas, Duration timeout) {
        return new RedisSemaphore(share.withReplicas(replicas, timeout), permits);
    }

    @Override
    public String name() {
        return share.name();
    }

    @Override
    public int permits() {
        return permits;
    }

    private ShareView of(int asked) {
        Require.argument(asked >= 1 && asked <= permits, "permits must be between 1 and %d: %d", permits, asked);
        return new ShareView(share, asked, ShareView.Role.PERMITS);
    }

    @Override
    public Optional<Lease> tryAcquire(int permits) {
        return of(permits).tryAcquire();
    }

    @Override
    public Optional<Lease> tryAcquire(int permits, Duration wait) throws InterruptedException {
        return of(permits).tryAcquire(wait);
    }

    @Override
    public Optional<Lease> tryAcquire(int permits, Duration wait, Duration lease) throws InterruptedException {
        return of(permits).tryAcquire(wait, lease);
    }

    @Override
    public Lease acquire(int permits) throws InterruptedException {
        return of(permits).acquire();
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(int permits, Duration wait) {
        return of(permits).acquireAsync(wait);
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(int permits, Duration wait) {
        return of(permits).tryAcquireAsync(wait);
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(int permits) {
        return of(permits).tryAcquireAsync();
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(int permits, Duration wait, Duration lease) {
        return of(permits).tryAcquireAsync(wait, lease);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(int permits) {
        return of(permits).acquireAsync();
    }

    @Override
    public Lease acquire() throws InterruptedException {
        return acquire(1);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync() {
        return acquireAsync(1);
    }

    @Override
    public int available() {
        return share.call(this::availableRequest, "available");
    }

    @Override
    public CompletableFuture<Integer> availableAsync() {
        return share.callAsync(this::availableRequest, "available");
    }

    /**
     * The free permits by this semaphore's number: all of them while nobody uses it (the next acquire stores that
     * number); a failure if it is in use with another.
     */
    private CompletableFuture<Integer> availableRequest() {
        return share.inspectRequest((state, identities) -> {
            boolean inUse = state.used() > 0 || state.waiters() > 0;
            if (!inUse) {
                return permits;
            }
            if (state.capacity() != permits) {
                throw Errors.permitsDiffer(share.describe("available"), (int) state.capacity(), permits);
            }
            return (int) Math.max(state.capacity() - state.used(), 0);
        });
    }

    @Override
    public DistributedSemaphore resize(int permits) {
        checkResize(permits);
        return share.call(() -> resizeRequest(permits), "resize");
    }

    @Override
    public CompletableFuture<DistributedSemaphore> resizeAsync(int permits) {
        checkResize(permits);
        return share.callAsync(() -> resizeRequest(permits), "resize");
    }

    private static void checkResize(int to) {
        Require.argument(to >= 1 && to <= LockClient.MAX_PERMITS, "permits must be between 1 and %d: %d",
                LockClient.MAX_PERMITS, to);
    }

    private CompletableFuture<DistributedSemaphore> resizeRequest(int to) {
        return share.resizeRequest(to).thenApply(before -> new RedisSemaphore(share.resized(to), to));
    }

    @Override
    public SemaphoreInfo inspect() {
        return share.call(this::inspectRequest, "inspect");
    }

    @Override
    public CompletableFuture<SemaphoreInfo> inspectAsync() {
        return share.callAsync(this::inspectRequest, "inspect");
    }

    private CompletableFuture<SemaphoreInfo> inspectRequest() {
        return share.inspectRequest((state, identities) -> state.semaphore(name(), identities));
    }

    @Override
    public OptionalLong forceRelease() {
        return share.call(() -> share.forceReleaseRequest(ShareScripts.Holders.ALL), "forced release");
    }

    @Override
    public CompletableFuture<OptionalLong> forceReleaseAsync() {
        return share.callAsync(() -> share.forceReleaseRequest(ShareScripts.Holders.ALL), "forced release");
    }

    @Override
    public String toString() {
        return "DistributedSemaphore{" + name() + ", " + permits + " permits}";
    }
}
