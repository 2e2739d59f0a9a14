package dev.warden.bench;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The least a lock with fencing tokens can do, to price fencing against the floor where nothing is contended:
 * a script that takes a free key's last fence, adds one and sets {@code fence:token}, and a script that checks
 * the token and keeps the fence. No waiters, no wake-ups, no clock minimum for fences after data loss: each of
 * those costs Warden more.
 */
final class FencedFloorContender extends LettuceContender {
    private static final String ACQUIRE = """
            local current = redis.call('GET', KEYS[1])
            local fence = 1
            if current then
              local last = string.match(current, '^(%d+)$')
              if not last then return 0 end
              fence = tonumber(last) + 1
            end
            redis.call('SET', KEYS[1], string.format('%.0f', fence) .. ':' .. ARGV[1], 'PX', 30000)
            return fence""";
    private static final String RELEASE = """
            local current = redis.call('GET', KEYS[1])
            if not current then return 0 end
            local fence, owner = string.match(current, '^(%d+):(.+)$')
            if owner ~= ARGV[1] then return 0 end
            redis.call('SET', KEYS[1], fence, 'PX', 86400000)
            return 1""";
    private final String acquireSha;
    private final String releaseSha;

    FencedFloorContender(String uri) {
        super(uri);
        acquireSha = connection.sync().scriptLoad(ACQUIRE);
        releaseSha = connection.sync().scriptLoad(RELEASE);
    }

    @Override
    public String name() {
        return "floor-fenced";
    }

    @Override
    public boolean takesPart(Scenario scenario) {
        return !scenario.shared;
    }

    @Override
    public Release acquire(String key) {
        RedisCommands<String, String> redis = connection.sync();
        String[] lockKey = {"bench:floor-fenced:" + key};
        String token = token();
        while (redis.<Long>evalsha(acquireSha, ScriptOutputType.INTEGER, lockKey, token) == 0L) {
            Thread.onSpinWait();
        }
        return () -> redis.evalsha(releaseSha, ScriptOutputType.INTEGER, lockKey, token);
    }
}
