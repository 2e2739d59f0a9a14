package dev.warden.bench;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The floor: SET key token NX PX 30000, retried at once while held, and an EVALSHA compare-and-delete. Two
 * round trips per uncontended pair; nothing correct does it in fewer.
 */
final class FloorContender extends LettuceContender {
    private static final String UNLOCK =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
    private final String sha;

    FloorContender(String uri) {
        super(uri);
        sha = connection.sync().scriptLoad(UNLOCK);
    }

    @Override
    public String name() {
        return "floor";
    }

    @Override
    public Release acquire(String key) {
        RedisCommands<String, String> redis = connection.sync();
        String lockKey = "bench:floor:" + key;
        String token = token();
        SetArgs args = SetArgs.Builder.nx().px(30_000);
        while (!"OK".equals(redis.set(lockKey, token, args))) {
            Thread.onSpinWait();
        }
        return () -> redis.evalsha(sha, ScriptOutputType.INTEGER, new String[] {lockKey}, token);
    }
}
