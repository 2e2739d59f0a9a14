package dev.warden.faults;

import dev.warden.LockConfig;
import dev.warden.redisserver.RedisCluster;
import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The lock servers of a fault run, in one topology: how workers reach them (a spec string that
 * {@link #configure(String)} turns into a configuration), and how server-side faults hit them.
 */
abstract class LockTarget implements AutoCloseable {
    /** The acknowledgement timeout of the Sentinel topology's replica policy. */
    static final Duration ACK_TIMEOUT = Duration.ofMillis(200);

    /** @return what a worker needs to connect: "topology|uris" */
    abstract String spec();

    /** Applies a server-side fault; returns when it is over. */
    abstract void apply(Fault fault, long leaseMillis, Random random) throws Exception;

    /** @return client connections on the lock servers now, or -1 where the topology does not count them */
    abstract int connections();

    /** @return the plain Redis URI of a server for the naive locks, which know one server only */
    String singleUri() {
        throw new UnsupportedOperationException("naive locks run on a single server only");
    }

    @Override
    public abstract void close();

    /** A configuration builder for a spec, with the key prefix of the runs. */
    static LockConfig.Builder configure(String spec) {
        String[] parts = spec.split("\\|");
        LockConfig.Builder builder = LockConfig.builder().keyPrefix("faults:");
        return switch (parts[0]) {
            case "single" -> builder.redisUri(parts[1]);
            case "sentinel" -> builder.redisUri(parts[1]).replicaAcks(Sentinel.REPLICAS, ACK_TIMEOUT);
            case "cluster" -> builder.cluster(parts[1]);
            case "quorum" -> builder.quorum(parts[1].split(","));
            default -> throw new IllegalArgumentException("unknown topology: " + spec);
        };
    }

    static LockTarget start(String topology) {
        return switch (topology) {
            case "single" -> new Single();
            case "sentinel" -> new Sentinel();
            case "cluster" -> new Cluster();
            case "quorum" -> new Quorum(3);
            default -> throw new IllegalArgumentException("unknown topology: " + topology);
        };
    }

    static int clientConnections(RedisServer server) {
        return (int) ((String) server.call("CLIENT", "LIST")).lines().count();
    }

    static void faultOne(RedisServer server, Fault fault, long leaseMillis) throws InterruptedException {
        switch (fault) {
            case SERVER_PAUSE -> {
                server.pause();
                TimeUnit.MILLISECONDS.sleep(leaseMillis * 3 / 2);
                server.resume();
            }
            case SERVER_RESTART -> server.restart();
            case CONNECTION_KILL -> {
                server.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
                server.call("CLIENT", "KILL", "TYPE", "pubsub");
                server.call("SCRIPT", "FLUSH");
            }
            case LATENCY -> server.call("DEBUG", "SLEEP", "0.3");
            default -> throw new IllegalStateException(fault + " does not apply to one server");
        }
    }

    /** One server: every fault hits it. */
    static final class Single extends LockTarget {
        private final RedisServer server = RedisServer.start();

        @Override
        String spec() {
            return "single|" + server.uri();
        }

        @Override
        String singleUri() {
            return server.uri();
        }

        @Override
        void apply(Fault fault, long leaseMillis, Random random) throws InterruptedException {
            faultOne(server, fault, leaseMillis);
        }

        @Override
        int connections() {
            return clientConnections(server);
        }

        @Override
        public void close() {
            server.close();
        }
    }

    /**
     * A master, two replicas and three sentinels; clients require the acknowledgement of both replicas, the setting
     * the README prescribes: with fewer, a failover can promote a replica that missed a grant, and a master that
     * Sentinel wrongly thinks dead (it happens here under load) goes on granting beside the new one. FAILOVER kills the
     * master, waits for the sentinels to promote a replica, and brings the old master back at once, empty, as a
     * replica of the new one.
     */
    static final class Sentinel extends LockTarget {
        static final int REPLICAS = 2;
        private static final String MASTER = "faultmaster";
        private final List<RedisServer> servers = new ArrayList<>();
        private final List<RedisServer> sentinels = new ArrayList<>();
        private long lastFailover;

        Sentinel() {
            try {
                RedisServer master = RedisServer.start();
                servers.add(master);
                for (int i = 0; i < REPLICAS; i++) {
                    servers.add(RedisServer.builder().args("--replicaof", master.host(),
                            Integer.toString(master.port())).start());
                }
                for (int i = 0; i < 3; i++) {
                    sentinels.add(RedisServer.builder().sentinel(MASTER, master.port(), 2, Duration.ofMillis(800))
                            .start());
                }
                for (RedisServer sentinel : sentinels) {
                    sentinel.awaitSentinelReady(REPLICAS, 2, Duration.ofSeconds(30));
                }
            } catch (RuntimeException e) {
                close();
                throw new IllegalStateException("Sentinel topology did not start", e);
            }
        }

        @Override
        String spec() {
            List<String> hosts = new ArrayList<>();
            sentinels.forEach(s -> hosts.add(s.host() + ":" + s.port()));
            return "sentinel|redis-sentinel://" + String.join(",", hosts) + "#" + MASTER;
        }

        @Override
        void apply(Fault fault, long leaseMillis, Random random) throws InterruptedException {
            if (fault != Fault.FAILOVER) {
                faultOne(master(), fault, leaseMillis);
                return;
            }
            // Sentinel starts no new failover of a master within twice its failover timeout of the last one.
            if (lastFailover != 0) {
                TimeUnit.NANOSECONDS.sleep(Math.max(0,
                        lastFailover + TimeUnit.SECONDS.toNanos(8) - System.nanoTime()));
            }
            RedisServer old = master();
            old.kill();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            RedisServer promoted = poll(() -> servers.stream()
                    .filter(server -> server != old && replication(server).contains("role:master"))
                    .findFirst().orElse(null), end, "no replica was promoted");
            // Back at once, possibly before the sentinels announce the new master, but never as a master: an empty
            // master would be a second, acknowledged copy of the locks (see the README's guarantees).
            old.restartAsReplicaOf(promoted);
            lastFailover = System.nanoTime();
            // The fault lasts until the new master has both replicas online again: grants need both
            // acknowledgements, so no lock can be granted before, and liveness is judged from then on.
            poll(() -> replicasOnline(promoted) ? promoted : null, end,
                    "the replicas of the new master did not come online");
        }

        private static boolean replicasOnline(RedisServer master) {
            String info = replication(master);
            return info.contains("connected_slaves:" + REPLICAS)
                    && info.split("state=online", -1).length - 1 == REPLICAS;
        }

        /**
         * Reads the servers' replication state every 50 ms until {@code probe} finds what it looks for; the state
         * changes without an event to wait for.
         *
         * @throws IllegalStateException with {@code missing} if it is not found by {@code end}
         */
        private static <T> T poll(Supplier<T> probe, long end, String missing) throws InterruptedException {
            while (System.nanoTime() - end < 0) {
                T found = probe.get();
                if (found != null) {
                    return found;
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
            throw new IllegalStateException(missing);
        }

        @Override
        int connections() {
            return -1;
        }

        @Override
        public void close() {
            sentinels.forEach(RedisServer::close);
            servers.forEach(RedisServer::close);
        }

        private RedisServer master() {
            for (RedisServer server : servers) {
                if (server.isRunning() && replication(server).contains("role:master")) {
                    return server;
                }
            }
            throw new IllegalStateException("no master");
        }

        private static String replication(RedisServer server) {
            try {
                return (String) server.call("INFO", "replication");
            } catch (RuntimeException e) {
                return "";
            }
        }
    }

    /** A cluster of three masters. SLOT_MIGRATION moves the slot of a random lock name to another node. */
    static final class Cluster extends LockTarget {
        private final RedisCluster cluster = RedisCluster.start(3);
        private final List<String> names;

        Cluster() {
            this.names = FaultSuiteTest.NAMES;
        }

        @Override
        String spec() {
            return "cluster|" + cluster.seedUri();
        }

        @Override
        void apply(Fault fault, long leaseMillis, Random random) throws InterruptedException {
            if (fault == Fault.SLOT_MIGRATION) {
                RedisServer any = cluster.nodes().get(0);
                String key = "faults:{" + names.get(random.nextInt(names.size())) + "}";
                int slot = ((Long) any.call("CLUSTER", "KEYSLOT", key)).intValue();
                RedisServer from = cluster.ownerOf(slot);
                List<RedisServer> others = new ArrayList<>(cluster.nodes());
                others.remove(from);
                cluster.migrateSlot(slot, from, others.get(random.nextInt(others.size())));
                return;
            }
            for (RedisServer node : cluster.nodes()) {
                faultOne(node, fault, leaseMillis);
            }
        }

        @Override
        int connections() {
            return -1;
        }

        @Override
        public void close() {
            cluster.close();
        }
    }

    /**
     * A quorum over independent servers; each fault hits one random server. A server that restarts stays down
     * for 1.5 leases first, as the Redlock analysis requires of a server that lost its data.
     */
    static final class Quorum extends LockTarget {
        private final List<RedisServer> servers = new ArrayList<>();

        Quorum(int count) {
            for (int i = 0; i < count; i++) {
                servers.add(RedisServer.start());
            }
        }

        @Override
        String spec() {
            List<String> uris = new ArrayList<>();
            servers.forEach(s -> uris.add(s.uri()));
            return "quorum|" + String.join(",", uris);
        }

        @Override
        void apply(Fault fault, long leaseMillis, Random random) throws InterruptedException {
            RedisServer server = servers.get(random.nextInt(servers.size()));
            if (fault == Fault.SERVER_RESTART) {
                server.kill();
                TimeUnit.MILLISECONDS.sleep(leaseMillis * 3 / 2);
                server.restart();
                return;
            }
            faultOne(server, fault, leaseMillis);
        }

        @Override
        int connections() {
            int total = 0;
            for (RedisServer server : servers) {
                total += clientConnections(server);
            }
            return total;
        }

        @Override
        public void close() {
            servers.forEach(RedisServer::close);
        }
    }
}
