package dev.warden.bench;

import dev.warden.redisserver.RedisServer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * The servers a run needs, started here and stopped by {@link #close()}: the Redis server every Redis contender
 * shares (unless one is given), a replica of it for {@code warden-wait}, two more servers for
 * {@code warden-quorum}, and an in-process ZooKeeper for {@code curator}.
 */
final class Backends implements AutoCloseable {
    private final List<AutoCloseable> started = new ArrayList<>();
    private RedisServer redisServer;
    private Contenders.Servers servers;

    private Backends() {
    }

    /**
     * @param redisUri   a Redis to use instead of starting one, or null
     * @param contenders the contenders of the run, which decide what else starts
     */
    static Backends start(String redisUri, List<String> contenders) throws Exception {
        Backends backends = new Backends();
        try {
            backends.startAll(redisUri, contenders);
            return backends;
        } catch (Exception | Error e) {
            backends.close();
            throw e;
        }
    }

    private void startAll(String redisUri, List<String> contenders) throws Exception {
        String uri = redisUri;
        if (uri == null) {
            redisServer = keep(RedisServer.start());
            uri = redisServer.uri();
        }
        if (contenders.contains("warden-wait")) {
            // Every contender of this run then faces a master with one replica, as WAIT mode needs.
            if (redisServer == null) {
                throw new IllegalArgumentException("warden-wait needs the bench's own server (no --redis)");
            }
            keep(RedisServer.builder().args("--replicaof", redisServer.host(), Integer.toString(redisServer.port()))
                    .start()).awaitReplicaSync(Duration.ofSeconds(20));
        }
        List<String> peers = new ArrayList<>();
        if (contenders.contains("warden-quorum")) {
            for (int i = 0; i < 2; i++) {
                peers.add(keep(RedisServer.start()).uri());
            }
        }
        String zookeeper = null;
        if (contenders.contains("curator")) {
            // No limit on connections from one host (ZooKeeper's default is 60): S9 opens a client per thread, 64.
            TestingServer server = keep(new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, -1, 0), true));
            zookeeper = server.getConnectString();
        }
        servers = new Contenders.Servers(uri, peers, zookeeper);
    }

    private <T extends AutoCloseable> T keep(T resource) {
        started.add(resource);
        return resource;
    }

    /** @return where the contenders find their servers */
    Contenders.Servers servers() {
        return servers;
    }

    /** @return the Redis server started here, or null when the run was given one */
    RedisServer redisServer() {
        return redisServer;
    }

    @Override
    public void close() throws IOException {
        IOException failure = null;
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IOException("could not stop every server", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
