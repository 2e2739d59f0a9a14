package dev.warden.internal.share;

import dev.warden.Identity;
import dev.warden.Lease;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Futures;
import dev.warden.internal.base.Require;
import dev.warden.internal.script.Replies;
import dev.warden.internal.script.ShareKeys;
import dev.warden.internal.script.ShareScripts;
import dev.warden.internal.script.Tokens;
import dev.warden.internal.wire.InFlight;
import dev.warden.internal.wire.Replicas;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * One shared lock of one client ({@code share.lua}): a semaphore's permits, or a read-write lock, whose readers take
 * one permit and whose writer takes the whole capacity. Stateless; the halves and the semaphore of the public API
 * are views of it.
 */
final class ShareLock {
    /** A read-write lock's capacity: a writer takes all of it, and up to one less reader than this share it. */
    static final long READ_WRITE_CAPACITY = 1L << 30;

    private final ShareContext context;
    private final String name;
    private final ShareKeys keys;
    private final ShareKeys.Kind kind;
    private final long capacity;
    private final Replicas replicas;

    /** A shared lock with the client's replica policy. */
    ShareLock(ShareContext context, String name, ShareKeys.Kind kind, long capacity) {
        this(context, name, kind, capacity, Replicas.of(context.config().replicaAcks(),
                context.config().replicaAckTimeout()));
    }

    private ShareLock(ShareContext context, String name, ShareKeys.Kind kind, long capacity, Replicas replicas) {
        this.context = context;
        this.name = name;
        this.kind = kind;
        this.capacity = capacity;
        this.replicas = replicas;
        this.keys = ShareKeys.of(context.config().keyPrefix(), name, kind);
    }

    /** This lock with another replica policy. */
    ShareLock withReplicas(int count, java.time.Duration timeout) {
        Require.replicaAcks(count, timeout, context.config().commandTimeout());
        return new ShareLock(context, name, kind, capacity, Replicas.of(count, timeout));
    }

    /** @return how many replicas must acknowledge this lock's grants and renewals */
    Replicas replicas() {
        return replicas;
    }

    String name() {
        return name;
    }

    ShareKeys keys() {
        return keys;
    }

    ShareKeys.Kind kind() {
        return kind;
    }

    long capacity() {
        return capacity;
    }

    ShareContext context() {
        return context;
    }

    /** Names an operation on this lock for error messages, with its key. */
    String describe(String operation) {
        String what = kind == ShareKeys.Kind.SEMAPHORE ? "semaphore" : "read-write lock";
        return operation + " of " + what + " '" + name + "' (key " + keys.state() + ")";
    }

    /**
     * The blocking form of an operation of the lock's API: runs {@code request} and waits for it.
     *
     * @param operation for messages, such as {@code "inspect"}
     */
    <T> T call(Supplier<CompletableFuture<T>> request, String operation) {
        return context().await(request.get(), describe(operation));
    }

    /**
     * The asynchronous form of an operation of the lock's API ({@link Futures#publish}): completed off the I/O
     * threads, failed with what the blocking form would throw.
     *
     * @param operation for messages, such as {@code "inspect"}
     */
    <T> CompletableFuture<T> callAsync(Supplier<CompletableFuture<T>> request, String operation) {
        return Futures.publish(request, context().callbackExecutor(), describe(operation));
    }

    /**
     * Starts an acquisition of {@code permits}.
     *
     * @param waitNanos 0 for one try, negative for no limit
     * @param companion the token of the calling thread's writer lease, for a downgrade, or the empty string
     * @param owner     the thread that asks, which the lease records
     */
    CompletableFuture<Optional<Lease>> start(long permits, long waitNanos, long leaseMillis, boolean renewing,
                                             String companion, Thread owner, Events.AcquireWatch watch) {
        return new ShareAcquisition(this, context(), permits, waitNanos, leaseMillis, renewing, companion, owner, watch)
                .start().result;
    }

    /**
     * Releases the token's share (or takes a waiter that gave up out of the queue); answers whether it held one.
     * The shares the release lent on to waiters of this client are named in its reply, not published: they are
     * passed to those waiters here, before the answer.
     */
    CompletableFuture<Boolean> release(String token) {
        return context.scripts().release(keys, kind, token, context.instanceId()).thenApply(released -> {
            for (Replies.Grant grant : released.grants()) {
                // A waiter that is gone finds nothing to take: the release by its token, sent when it ended
                // (after this one), gives the share back.
                context.notifier().assigned(grant.token(), grant.fence(), grant.arm(), null);
            }
            return released.held();
        });
    }

    /**
     * Sets the end of the token's share to {@code millis} from now; false if it holds none. Where replicas must
     * acknowledge, a change too few acknowledged fails with {@link dev.warden.LockReplicationException}.
     */
    CompletableFuture<Boolean> expire(String token, long millis) {
        if (!replicas.required()) {
            return context.scripts().expire(keys, token, millis);
        }
        return context.scripts().expire(keys, token, millis, replicas).thenApply(acked -> {
            if (acked.acks() < replicas.count()) {
                throw new dev.warden.LockReplicationException("expiry change acknowledged by " + acked.acks()
                        + " of " + replicas.count() + " replicas", (int) acked.acks(), replicas.count());
            }
            return acked.reply();
        });
    }

    /**
     * Reads the lock's state, counted in flight, and names its holders and waiters from their clients' records.
     *
     * @param build makes the caller's view of the state from it and the identities of its origins
     */
    <T> CompletableFuture<T> inspectRequest(BiFunction<Replies.ShareState, Map<Tokens.Origin, Identity>, T> build) {
        return context.inspect(keys, build);
    }

    /** A semaphore's number of permits set to {@code permits}, from this lock's; answers the number it had. */
    CompletableFuture<Long> resizeRequest(long permits) {
        return context.inFlight().track(InFlight.Kind.WORK,
                () -> context.scripts().resize(keys, kind, capacity, permits));
    }

    /** This lock with another capacity and the same replica policy. */
    ShareLock resized(long newCapacity) {
        return new ShareLock(context, name, kind, newCapacity, replicas);
    }

    CompletableFuture<OptionalLong> forceReleaseRequest(ShareScripts.Holders which) {
        return context.inFlight().track(InFlight.Kind.WORK,
                () -> context.scripts().forceRelease(keys, kind, which));
    }
}
