package dev.warden.bench;

import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockListener;
import dev.warden.micrometer.WardenMetrics;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * The contenders: Warden in its default and fair modes, the raw floor and the least a fenced lock can do,
 * Redisson's lock and fair lock (and, in the read-write and semaphore scenarios, its read-write lock, semaphore
 * and semaphore of expirable permits), Spring Integration's RedisLockRegistry in its spin and pub/sub modes, Curator's
 * InterProcessMutex over an in-process ZooKeeper, a PING line and a PING handoff, and (in the read-write and
 * semaphore scenarios, when named) the JDK's fair read-write lock and semaphore in one JVM, {@code in-process}; and, to
 * price Warden's safer topologies against its single-server lock, {@code warden-wait} (one replica acknowledgement
 * per grant and renewal) and {@code warden-quorum} (a quorum of three servers); and to price observability,
 * {@code warden-noop} (the default mode with a listener that does nothing: the events' own cost) and
 * {@code warden-metrics} (with {@code WardenMetrics} recording into a {@code SimpleMeterRegistry}).
 */
final class Contenders {
    /**
     * The contenders of a run that names none. {@code redisson-expirable} runs only when named: it takes part in S11
     * alone, and a fork skips a scenario only after opening its client, which for Redisson takes a second or more on
     * a busy machine.
     */
    static final List<String> NAMES = List.of("warden", "warden-fair", "floor", "floor-fenced", "redisson",
            "redisson-fair", "spring-spin", "spring-pubsub", "curator", "ping", "ping-handoff");
    static final List<String> TOPOLOGIES = List.of("warden-wait", "warden-quorum", "warden-noop", "warden-metrics");

    private Contenders() {
    }

    /**
     * Where the contenders find their servers.
     *
     * @param redis       the bench's Redis server
     * @param quorumPeers two more Redis servers, for {@code warden-quorum}
     * @param zookeeper   the connect string of the ZooKeeper server, for {@code curator}
     */
    record Servers(String redis, List<String> quorumPeers, String zookeeper) {
        Servers(String redis) {
            this(redis, List.of(), null);
        }
    }

    static Contender open(String name, Servers servers) {
        String uri = servers.redis();
        return switch (name) {
            case "warden" -> new WardenContender(name, LockConfig.builder().redisUri(uri));
            case "warden-fair" -> new WardenContender(name, LockConfig.builder().redisUri(uri).fair(true));
            case "warden-wait" -> new WardenContender(name, LockConfig.builder().redisUri(uri)
                    .replicaAcks(1, java.time.Duration.ofSeconds(1)));
            case "warden-noop" -> new WardenContender(name, LockConfig.builder().redisUri(uri)
                    .listener(new LockListener() { }));
            case "warden-metrics" -> new WardenContender(name, LockConfig.builder().redisUri(uri)
                    .listener(WardenMetrics.builder(new SimpleMeterRegistry()).build()));
            case "warden-quorum" -> new WardenContender(name, LockConfig.builder().quorum(
                    uri, servers.quorumPeers().get(0), servers.quorumPeers().get(1)));
            case "floor" -> new FloorContender(uri);
            case "floor-fenced" -> new FencedFloorContender(uri);
            case "redisson" -> new RedissonContender(uri, name, client -> client::getLock);
            case "redisson-fair" -> new RedissonContender(uri, name, client -> client::getFairLock);
            case "redisson-expirable" -> new RedissonContender(uri, name, null);
            case "spring-spin" -> new SpringContender(uri, name, RedisLockRegistry.RedisLockType.SPIN_LOCK);
            case "spring-pubsub" -> new SpringContender(uri, name, RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
            case "curator" -> new CuratorContender(servers.zookeeper());
            case "ping" -> new PingContender(uri);
            case "ping-handoff" -> new PingHandoffContender(uri);
            case "in-process" -> new InProcessContender();
            default -> throw new IllegalArgumentException("unknown contender: " + name);
        };
    }

    /**
     * Warden with its defaults: a 30 s lease renewed by the watchdog. Its read-write lock and semaphore run too, but
     * not over a quorum, which has neither.
     */
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
        public Release acquireRead(String key) throws InterruptedException {
            Lease lease = client.readWriteLock(key).readLock().acquire();
            return lease::close;
        }

        @Override
        public Release acquireWrite(String key) throws InterruptedException {
            Lease lease = client.readWriteLock(key).writeLock().acquire();
            return lease::close;
        }

        @Override
        public Release acquirePermit(String key, int permits) throws InterruptedException {
            Lease lease = client.semaphore(key, permits).acquire(1);
            return lease::close;
        }

        @Override
        public boolean takesPart(Scenario scenario) {
            return scenario.kind == Scenario.Kind.LOCK || client.config().topology() != LockConfig.Topology.QUORUM;
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** A contender on one plain Lettuce connection: the floor, the fenced floor and the PING line. */
    abstract static class LettuceContender implements Contender {
        final RedisClient client;
        final StatefulRedisConnection<String, String> connection;
        private final SecureRandom random = new SecureRandom();

        LettuceContender(String uri) {
            client = RedisClient.create(uri);
            connection = client.connect();
        }

        /** @return a random owner token, as every lock here uses */
        String token() {
            byte[] bytes = new byte[16];
            random.nextBytes(bytes);
            return Base64.getEncoder().encodeToString(bytes);
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown();
        }
    }

    /**
     * The floor: SET key token NX PX 30000, retried at once while held, and an EVALSHA compare-and-delete. Two
     * round trips per uncontended pair; nothing correct does it in fewer.
     */
    static final class FloorContender extends LettuceContender {
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

    /**
     * The least a lock with fencing tokens can do, to price fencing against the floor where nothing is contended:
     * a script that takes a free key's last fence, adds one and sets {@code fence:token}, and a script that checks
     * the token and keeps the fence. No waiters, no wake-ups, no clock floor for fences after data loss: each of
     * those costs Warden more.
     */
    static final class FencedFloorContender extends LettuceContender {
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

    /**
     * Redisson with its defaults (watchdog on): {@code redisson} with its RLock in the lock scenarios, its
     * RReadWriteLock in the read-write one and its RSemaphore in the semaphore one; {@code redisson-fair} with its fair
     * lock, in the lock scenarios only; {@code redisson-expirable} with its RPermitExpirableSemaphore, in the semaphore
     * scenario only. A semaphore's permits are set once per name ({@code trySetPermits}), before its first acquire.
     */
    static final class RedissonContender implements Contender {
        private final RedissonClient client;
        private final String name;
        /** Null for {@code redisson-expirable}, which has semaphores only. */
        private final Function<String, RLock> locks;
        /** Per semaphore name, what takes one permit and returns its release. */
        private final Map<String, Callable<Release>> semaphores = new ConcurrentHashMap<>();

        RedissonContender(String uri, String name, Function<RedissonClient, Function<String, RLock>> kind) {
            Config config = new Config();
            config.useSingleServer().setAddress(uri);
            this.client = Redisson.create(config);
            this.name = name;
            this.locks = kind == null ? null : kind.apply(client);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean takesPart(Scenario scenario) {
            return switch (scenario.kind) {
                case LOCK -> locks != null;
                case READ_WRITE -> name.equals("redisson");
                case SEMAPHORE -> !name.equals("redisson-fair");
            };
        }

        @Override
        public Release acquire(String key) {
            RLock lock = locks.apply(key(key));
            lock.lock();
            return lock::unlock;
        }

        @Override
        public Release acquireRead(String key) {
            RLock lock = client.getReadWriteLock(key(key)).readLock();
            lock.lock();
            return lock::unlock;
        }

        @Override
        public Release acquireWrite(String key) {
            RLock lock = client.getReadWriteLock(key(key)).writeLock();
            lock.lock();
            return lock::unlock;
        }

        @Override
        public Release acquirePermit(String key, int permits) throws Exception {
            return semaphores.computeIfAbsent(key(key), semaphore -> semaphore(semaphore, permits)).call();
        }

        private Callable<Release> semaphore(String semaphore, int permits) {
            if (locks == null) {
                RPermitExpirableSemaphore expirable = client.getPermitExpirableSemaphore(semaphore);
                expirable.trySetPermits(permits);
                return () -> {
                    String permit = expirable.acquire();
                    return () -> expirable.release(permit);
                };
            }
            RSemaphore plain = client.getSemaphore(semaphore);
            plain.trySetPermits(permits);
            return () -> {
                plain.acquire();
                return plain::release;
            };
        }

        private String key(String key) {
            return "bench:" + name + ":" + key;
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }

    /**
     * Spring Integration's RedisLockRegistry over Spring Data Redis and Lettuce, with its defaults (a 60 s expiry,
     * no renewal). In spin mode a waiter retries every 100 ms; in pub/sub mode it is woken by the release. Threads
     * of one registry first queue on a local lock per key, so only one of them at a time asks Redis.
     */
    static final class SpringContender implements Contender {
        private final String name;
        private final LettuceConnectionFactory factory;
        private final RedisLockRegistry registry;

        SpringContender(String uri, String name, RedisLockRegistry.RedisLockType type) {
            URI parsed = URI.create(uri);
            this.name = name;
            this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(parsed.getHost(),
                    parsed.getPort()));
            factory.afterPropertiesSet();
            factory.start();
            this.registry = new RedisLockRegistry(factory, "bench:" + name);
            registry.setRedisLockType(type);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Release acquire(String key) {
            Lock lock = registry.obtain(key);
            lock.lock();
            return lock::unlock;
        }

        @Override
        public void close() {
            registry.destroy();
            factory.destroy();
        }
    }

    /** Apache Curator's InterProcessMutex: a ZooKeeper lock, each waiter watching the node before its own. */
    static final class CuratorContender implements Contender {
        private final CuratorFramework client;
        private final Map<String, InterProcessMutex> mutexes = new ConcurrentHashMap<>();

        CuratorContender(String connectString) {
            client = CuratorFrameworkFactory.newClient(connectString, new RetryOneTime(100));
            client.start();
            try {
                if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("ZooKeeper did not answer at " + connectString);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while connecting to ZooKeeper", e);
            }
        }

        @Override
        public String name() {
            return "curator";
        }

        @Override
        public boolean onRedis() {
            return false;
        }

        @Override
        public Release acquire(String key) throws Exception {
            InterProcessMutex mutex = mutexes.computeIfAbsent(key, k -> new InterProcessMutex(client, "/bench/" + k));
            mutex.acquire();
            return mutex::release;
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /**
     * Not a lock: a PING where the lock is taken and another where it is released, on Lettuce's sync API. The
     * round-trip time of two requests, below which no correct Redis lock can go; it runs only where nothing is
     * shared.
     */
    static final class PingContender extends LettuceContender {
        PingContender(String uri) {
            super(uri);
        }

        @Override
        public String name() {
            return "ping";
        }

        @Override
        public boolean takesPart(Scenario scenario) {
            return !scenario.shared;
        }

        @Override
        public Release acquire(String key) {
            RedisCommands<String, String> redis = connection.sync();
            redis.ping();
            return redis::ping;
        }
    }

    /**
     * Not a lock across clients: the least a handoff costs when waiters sleep and every release goes to Redis. The
     * threads of one client queue on a fair semaphore per key; a release sends a PING and the thread that reads its
     * reply hands the semaphore to the next waiter, as Warden's grants do, so a handoff is one round trip and one
     * wake-up. It runs only where one client's threads share a key (S3, S4): it excludes nothing across clients.
     */
    static final class PingHandoffContender extends LettuceContender {
        private final Map<String, Semaphore> keys = new ConcurrentHashMap<>();

        PingHandoffContender(String uri) {
            super(uri);
        }

        @Override
        public String name() {
            return "ping-handoff";
        }

        @Override
        public boolean takesPart(Scenario scenario) {
            return scenario.kind == Scenario.Kind.LOCK && scenario.shared && !scenario.clientPerThread;
        }

        @Override
        public Release acquire(String key) throws InterruptedException {
            Semaphore semaphore = keys.computeIfAbsent(key, k -> new Semaphore(1, true));
            semaphore.acquire();
            return () -> connection.async().ping().thenRun(semaphore::release).toCompletableFuture().get();
        }
    }

    /**
     * Not a lock across clients: the JDK's fair {@link ReentrantReadWriteLock} and fair {@link Semaphore}, shared by
     * the threads of one JVM, with no server and no network. Arrival order and the work are those of the scenario,
     * so its throughput is the most a fair read-write lock or semaphore reaches here, whatever it costs to be
     * distributed: a ceiling for S10 and S11. It runs only there, where one client's threads share the lock.
     */
    static final class InProcessContender implements Contender {
        private final Map<String, ReentrantReadWriteLock> readWrite = new ConcurrentHashMap<>();
        private final Map<String, Semaphore> semaphores = new ConcurrentHashMap<>();

        @Override
        public String name() {
            return "in-process";
        }

        @Override
        public boolean takesPart(Scenario scenario) {
            return scenario.kind != Scenario.Kind.LOCK && scenario.clients == 1;
        }

        @Override
        public boolean onRedis() {
            return false;
        }

        @Override
        public Release acquire(String key) {
            throw new UnsupportedOperationException("in-process runs only in S10 and S11");
        }

        @Override
        public Release acquireRead(String key) {
            Lock read = readWrite.computeIfAbsent(key, k -> new ReentrantReadWriteLock(true)).readLock();
            read.lock();
            return read::unlock;
        }

        @Override
        public Release acquireWrite(String key) {
            Lock write = readWrite.computeIfAbsent(key, k -> new ReentrantReadWriteLock(true)).writeLock();
            write.lock();
            return write::unlock;
        }

        @Override
        public Release acquirePermit(String key, int permits) throws InterruptedException {
            Semaphore semaphore = semaphores.computeIfAbsent(key, k -> new Semaphore(permits, true));
            semaphore.acquire();
            return semaphore::release;
        }

        @Override
        public void close() {
        }
    }
}
