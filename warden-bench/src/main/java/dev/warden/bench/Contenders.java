package dev.warden.bench;

import dev.warden.LockConfig;
import dev.warden.LockListener;
import dev.warden.micrometer.WardenMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.redisson.Redisson;
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
}
