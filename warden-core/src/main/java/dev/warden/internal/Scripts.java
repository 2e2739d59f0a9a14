package dev.warden.internal;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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

    private final RedisAsyncCommands<String, String> redis;
    private final Script acquire = Script.load("acquire");
    private final Script release = Script.load("release");
    private final Script renew = Script.load("renew");
    private final Script inspect = Script.load("inspect");
    private final Script forceRelease = Script.load("force-release");

    Scripts(RedisAsyncCommands<String, String> redis) {
        this.redis = redis;
    }

    /** Returns {1, fence} when acquired, {0, holder's PTTL} when held. */
    CompletableFuture<List<Object>> acquire(LockKeys keys, String token, long leaseMillis, boolean registerWaiter) {
        return run(acquire, ScriptOutputType.MULTI, new String[] {keys.lock(), keys.waiters()},
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
                Integer.toString(localWaiters));
    }

    /** Returns one 1 (renewed) or 0 (lost) per key; {@code args} holds a token and a lease in ms per key. */
    CompletableFuture<List<Object>> renew(String[] keys, String[] args) {
        return run(renew, ScriptOutputType.MULTI, keys, args);
    }

    /** Returns {held, remaining ms, last fence, live waiter registrations}. */
    CompletableFuture<List<Object>> inspect(LockKeys keys) {
        return run(inspect, ScriptOutputType.MULTI, new String[] {keys.lock(), keys.waiters()});
    }

    /** Returns the removed holder's fence, or 0 if the lock was free. */
    CompletableFuture<Long> forceRelease(LockKeys keys, String message) {
        return run(forceRelease, ScriptOutputType.INTEGER, new String[] {keys.lock(), keys.waiters()},
                RETENTION, keys.channel(), message);
    }

    private <T> CompletableFuture<T> run(Script script, ScriptOutputType type, String[] keys, String... args) {
        RedisFuture<T> future = redis.evalsha(script.sha(), type, keys, args);
        return future.toCompletableFuture().exceptionallyCompose(error -> {
            if (Errors.unwrap(error) instanceof RedisNoScriptException) {
                RedisFuture<T> retry = redis.eval(script.source(), type, keys, args);
                return retry.toCompletableFuture();
            }
            return CompletableFuture.failedFuture(error);
        });
    }
}
