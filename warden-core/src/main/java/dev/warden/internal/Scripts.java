package dev.warden.internal;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The lock's Redis operations, each one Lua script called by SHA. When the server does not know a script (after
 * {@code SCRIPT FLUSH} or a restart), it is sent in full once, which also caches it again.
 */
final class Scripts {
    /** How long a released lock keeps its last fencing token: one day. */
    static final long FENCE_RETENTION_MS = 24L * 60 * 60 * 1000;
    /** How much longer than the holder's TTL a waiter's registration lasts. */
    static final long WAITER_SLACK_MS = 2_000;

    private static final String RETENTION = Long.toString(FENCE_RETENTION_MS);
    private static final String SLACK = Long.toString(WAITER_SLACK_MS);

    private final Link link;
    private final String publish;
    private final Script acquire = Script.load("acquire");
    private final Script release = Script.load("release");
    private final Script renew = Script.load("renew");
    private final Script inspect = Script.load("inspect");
    private final Script forceRelease = Script.load("force-release");
    private final Script raiseFence = Script.load("raise-fence");

    /**
     * @param link the connections: the shared one for plain operations, the acknowledgement connection for
     *             operations followed by {@code WAIT} (which blocks its connection until the replicas answer); it
     *             is told of every failure, and whether releases publish with {@code SPUBLISH} (Redis 7 cluster)
     */
    Scripts(Link link) {
        this.link = link;
        this.publish = link.sharded() ? "SPUBLISH" : "PUBLISH";
    }

    /** Returns {1, fence} when acquired, {0, holder's PTTL} when held. */
    CompletableFuture<List<Object>> acquire(LockKeys keys, String token, long leaseMillis, boolean registerWaiter) {
        return run(acquire, ScriptOutputType.MULTI, new String[] {keys.lock(), keys.waiters()},
                token, Long.toString(leaseMillis), registerWaiter ? "1" : "0", RETENTION, SLACK);
    }

    /** As {@link #acquire}, followed in the same round trip by {@code WAIT}. */
    CompletableFuture<Acked<List<Object>>> acquire(LockKeys keys, String token, long leaseMillis,
                                                   boolean registerWaiter, Replicas replicas) {
        return runAcked(acquire, ScriptOutputType.MULTI, new String[] {keys.lock(), keys.waiters()}, replicas,
                token, Long.toString(leaseMillis), registerWaiter ? "1" : "0", RETENTION, SLACK);
    }

    /** Returns {1, 0} when released, {0, 0} when the token no longer owned the lock. */
    CompletableFuture<List<Object>> release(LockKeys keys, String token, String message) {
        return releaseTo(keys, token, message, "", 0, 0);
    }

    /**
     * Releases, handing the lock to a waiter of this client if no other client waits: returns {2, new fence} when
     * handed over, else as {@link #release}.
     */
    CompletableFuture<List<Object>> releaseTo(LockKeys keys, String token, String message, String nextToken,
                                              long nextLeaseMillis, int localWaiters) {
        return run(release, ScriptOutputType.MULTI, new String[] {keys.lock(), keys.waiters()},
                token, RETENTION, keys.channel(), message, nextToken, Long.toString(nextLeaseMillis),
                Integer.toString(localWaiters), publish);
    }

    /** Returns one 1 (renewed) or 0 (lost) per key; {@code args} holds a token and a lease in ms per key. */
    CompletableFuture<List<Object>> renew(String[] keys, String[] args) {
        return run(renew, ScriptOutputType.MULTI, keys, args);
    }

    /** As {@link #renew}, followed in the same round trip by {@code WAIT}. */
    CompletableFuture<Acked<List<Object>>> renew(String[] keys, String[] args, Replicas replicas) {
        return runAcked(renew, ScriptOutputType.MULTI, keys, replicas, args);
    }

    /**
     * Raises the fence of a lock this token holds to {@code fence} (quorum locks agree on the highest fence of
     * their servers); returns 1 if the token holds the lock, 0 if not.
     */
    CompletableFuture<Long> raiseFence(LockKeys keys, String token, long fence) {
        return run(raiseFence, ScriptOutputType.INTEGER, new String[] {keys.lock()}, token, Long.toString(fence));
    }

    /** Returns {held, remaining ms, last fence, live waiter registrations}. */
    CompletableFuture<List<Object>> inspect(LockKeys keys) {
        return run(inspect, ScriptOutputType.MULTI, new String[] {keys.lock(), keys.waiters()});
    }

    /** Returns the removed holder's fence, or 0 if the lock was free. */
    CompletableFuture<Long> forceRelease(LockKeys keys, String message) {
        return run(forceRelease, ScriptOutputType.INTEGER, new String[] {keys.lock(), keys.waiters()},
                RETENTION, keys.channel(), message, publish);
    }

    private <T> CompletableFuture<Acked<T>> runAcked(Script script, ScriptOutputType type, String[] keys,
                                                     Replicas replicas, String... args) {
        RedisClusterAsyncCommands<String, String> commands = link.ackCommands();
        // Sent back to back on one connection: WAIT counts the acknowledgements of the script's writes.
        CompletableFuture<T> reply = commands.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
        CompletableFuture<Long> acks = commands.waitForReplication(replicas.count(), replicas.timeoutMillis())
                .toCompletableFuture();
        return reply.handle((value, error) -> {
            if (error == null) {
                return acks.thenApply(count -> new Acked<>(value, count));
            }
            link.failed(error);
            if (Errors.unwrap(error) instanceof RedisNoScriptException) {
                CompletableFuture<T> again = commands.<T>eval(script.source(), type, keys, args)
                        .toCompletableFuture();
                CompletableFuture<Long> againAcks = commands.waitForReplication(replicas.count(),
                        replicas.timeoutMillis()).toCompletableFuture();
                return again.thenCombine(againAcks, Acked::new);
            }
            return CompletableFuture.<Acked<T>>failedFuture(error);
        }).thenCompose(Function.identity());
    }

    private <T> CompletableFuture<T> run(Script script, ScriptOutputType type, String[] keys, String... args) {
        RedisClusterAsyncCommands<String, String> redis = link.commands();
        RedisFuture<T> future = redis.evalsha(script.sha(), type, keys, args);
        return future.toCompletableFuture().exceptionallyCompose(error -> {
            link.failed(error);
            if (Errors.unwrap(error) instanceof RedisNoScriptException) {
                RedisFuture<T> retry = redis.eval(script.source(), type, keys, args);
                return retry.toCompletableFuture();
            }
            return CompletableFuture.failedFuture(error);
        });
    }
}
