package dev.warden.internal.multi;

import dev.warden.DistributedMultiLock;
import dev.warden.Lease;
import dev.warden.LockInfo;
import dev.warden.MultiLease;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.Lock;

/**
 * A {@link MultiLock} as its users see it: every acquire typed as the {@link MultiLease} it is. Delegates; the
 * futures it returns cancel the multi-lock's own when cancelled, so that a cancelled acquire still gives back what
 * it took.
 */
public final class TypedMultiLock implements DistributedMultiLock {
    private final MultiLock lock;

    public TypedMultiLock(MultiLock lock) {
        this.lock = lock;
    }

    @Override
    public String name() {
        return lock.name();
    }

    @Override
    public List<String> names() {
        return lock.names();
    }

    @Override
    public Optional<MultiLease> tryAcquire() {
        return typed(lock.tryAcquire());
    }

    @Override
    public Optional<MultiLease> tryAcquire(Duration wait) throws InterruptedException {
        return typed(lock.tryAcquire(wait));
    }

    @Override
    public Optional<MultiLease> tryAcquire(Duration wait, Duration lease) throws InterruptedException {
        return typed(lock.tryAcquire(wait, lease));
    }

    @Override
    public MultiLease acquire() throws InterruptedException {
        return (MultiLease) lock.acquire();
    }

    @Override
    public CompletableFuture<MultiLease> acquireAsync(Duration wait) {
        return mapped(lock.acquireAsync(wait), MultiLease.class::cast);
    }

    @Override
    public CompletableFuture<Optional<MultiLease>> tryAcquireAsync(Duration wait) {
        return mapped(lock.tryAcquireAsync(wait), TypedMultiLock::typed);
    }

    @Override
    public CompletableFuture<Optional<MultiLease>> tryAcquireAsync() {
        return mapped(lock.tryAcquireAsync(), TypedMultiLock::typed);
    }

    @Override
    public CompletableFuture<Optional<MultiLease>> tryAcquireAsync(Duration wait, Duration lease) {
        return mapped(lock.tryAcquireAsync(wait, lease), TypedMultiLock::typed);
    }

    @Override
    public CompletableFuture<MultiLease> acquireAsync() {
        return mapped(lock.acquireAsync(), MultiLease.class::cast);
    }

    @Override
    public boolean isLocked() {
        return lock.isLocked();
    }

    @Override
    public LockInfo inspect() {
        return lock.inspect();
    }

    @Override
    public CompletableFuture<LockInfo> inspectAsync() {
        return lock.inspectAsync();
    }

    @Override
    public OptionalLong forceRelease() {
        return lock.forceRelease();
    }

    @Override
    public CompletableFuture<OptionalLong> forceReleaseAsync() {
        return lock.forceReleaseAsync();
    }

    @Override
    public Lock asLock() {
        return lock.asLock();
    }

    @Override
    public DistributedMultiLock withReplicaAcks(int replicas, Duration timeout) {
        return new TypedMultiLock((MultiLock) lock.withReplicaAcks(replicas, timeout));
    }

    private static Optional<MultiLease> typed(Optional<Lease> lease) {
        return lease.map(MultiLease.class::cast);
    }

    /**
     * The multi-lock's future, typed: completed when it is, with the same failure; cancelling it cancels the
     * multi-lock's, whose acquisition then gives back what it took.
     */
    private static <T, R> CompletableFuture<R> mapped(CompletableFuture<T> source,
                                                    java.util.function.Function<T, R> type) {
        CompletableFuture<R> out = new CompletableFuture<>();
        source.whenComplete((value, error) -> {
            if (error != null) {
                out.completeExceptionally(error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error);
            } else {
                out.complete(type.apply(value));
            }
        });
        out.whenComplete((value, error) -> {
            if (out.isCancelled()) {
                source.cancel(false);
            }
        });
        return out;
    }

    @Override
    public String toString() {
        return lock.toString();
    }
}
