package dev.warden.bench;

import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The contenders: Warden, the raw floor, and Redisson's lock and fair lock; and, to price Warden's safer
 * topologies against its single-server lock, {@code warden-wait} (one replica acknowledgement per grant and
 * renewal) and {@code warden-quorum} (a quorum of three servers).
 */
final class Contenders {
    static final List<String> NAMES = List.of("warden", "floor", "redisson", "redisson-fair");
    static final List<String> TOPOLOGIES = List.of("warden-wait", "warden-quorum");

    private Contenders() {
    }

    /**
     * @param uri         the bench's Redis server
     * @param quorumPeers two more servers, for {@code warden-quorum}
     */
    static Contender open(String name, String uri, List<String> quorumPeers) {
        return switch (name) {
            case "warden-wait" -> new WardenContender(name, LockConfig.builder().redisUri(uri)
                    .replicaAcks(1, java.time.Duration.ofSeconds(1)));
            case "warden-quorum" -> new WardenContender(name, LockConfig.builder().quorum(
                    uri, quorumPeers.get(0), quorumPeers.get(1)));
            default -> open(name, uri);
        };
    }

    static Contender open(String name, String uri) {
        return switch (name) {
            case "warden" -> new WardenContender(name, LockConfig.builder().redisUri(uri));
            case "floor" -> new FloorContender(uri);
            case "redisson" -> new RedissonContender(uri, "redisson", client -> client::getLock);
            case "redisson-fair" -> new RedissonContender(uri, "redisson-fair", client -> client::getFairLock);
            default -> throw new IllegalArgumentException("unknown contender: " + name);
        };
    }

    /** Warden with its defaults: a 30 s lease renewed by the watchdog. */
    static final class WardenContender implements Contender {
        private final String name;
        private final LockClient client;

        WardenContender(String name, LockConfig.Builder config) {
            this.name = name;
            this.client = LockClient.create(config.keyPrefix("bench:" + name + ":").build());
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Release acquire(String key) throws InterruptedException {
            Lease lease = client.lock(key).acquire();
            return lease::close;
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /**
     * The floor: SET key token NX PX 30000, retried at once while held, and an EVALSHA compare-and-delete. Two
     * round trips per uncontended pair; nothing correct does it in fewer.
     */
    static final class FloorContender implements Contender {
        private static final String UNLOCK =
                "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;
        private final String sha;
        private final SecureRandom random = new SecureRandom();

        FloorContender(String uri) {
            client = RedisClient.create(uri);
            connection = client.connect();
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
            byte[] bytes = new byte[16];
            random.nextBytes(bytes);
            String token = Base64.getEncoder().encodeToString(bytes);
            SetArgs args = SetArgs.Builder.nx().px(30_000);
            while (!"OK".equals(redis.set(lockKey, token, args))) {
                Thread.onSpinWait();
            }
            return () -> redis.evalsha(sha, ScriptOutputType.INTEGER, new String[] {lockKey}, token);
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown();
        }
    }

    /** Redisson's RLock or fair lock, with its defaults (watchdog on). */
    static final class RedissonContender implements Contender {
        private final RedissonClient client;
        private final String name;
        private final Function<String, RLock> locks;

        RedissonContender(String uri, String name, Function<RedissonClient, Function<String, RLock>> kind) {
            Config config = new Config();
            config.useSingleServer().setAddress(uri);
            this.client = Redisson.create(config);
            this.name = name;
            this.locks = kind.apply(client);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Release acquire(String key) {
            RLock lock = locks.apply("bench:" + name + ":" + key);
            lock.lock();
            return lock::unlock;
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }
}
