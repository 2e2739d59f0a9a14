package dev.warden.faults;

import dev.warden.LockConfig;
import dev.warden.redisserver.RedisCluster;
import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
            case "cluster-acks" -> builder.cluster(parts[1].split(",")).replicaAcks(1, ACK_TIMEOUT);
            case "quorum" -> builder.quorum(parts[1].split(","));
            default -> throw new IllegalArgumentException("unknown topology: " + spec);
        };
    }

    /**
     * Starts the servers of a topology.
     *
     * @param names the run's lock names (a leadership run's election): the cluster faults that strike the master of
     *              "a lock name's slot" pick among these
     */
    static LockTarget start(String topology, List<String> names) {
        return switch (topology) {
            case "single" -> new Single();
            case "sentinel" -> new Sentinel();
            case "cluster" -> new Cluster(names);
            case "cluster-acks" -> new ReplicatedCluster(names);
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
     * master, waits for the sentinels to promote a replica, and brings the old master back, empty, as a replica of
     * the new one as soon as most sentinels name it.
     *
     * <p>The master is whichever server most sentinels name, not any server that says it is one: after such a wrong
     * failover two servers say so until Sentinel demotes the old one.
     */
    static final class Sentinel extends LockTarget {
        static final int REPLICAS = 2;
        private static final String MASTER = "faultmaster";
        private static final long STEP_BOUND = TimeUnit.SECONDS.toNanos(30);
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
            long killed = System.nanoTime();
            old.kill();
            // Each step has its own bound: an election that splits the sentinels' votes is retried only after
            // twice the failover timeout, so a promotion alone may take several times the usual second or two.
            RedisServer promoted = poll(() -> {
                RedisServer named = namedMaster();
                return named != old ? named : null;
            }, killed + STEP_BOUND, () -> "no replica was promoted");
            long promotedAt = System.nanoTime();
            // Back as soon as the sentinels name the new master, and never as a master: an empty master would be a
            // second, acknowledged copy of the locks (see the README's guarantees).
            old.restartAsReplicaOf(promoted);
            lastFailover = System.nanoTime();
            // The fault lasts until a master has both replicas online again: grants need both acknowledgements, so
            // no lock can be granted before, and liveness is judged from then on. That master need not be the one
            // promoted here: on a loaded machine a sentinel may find the new master slow to answer (for longer than
            // its down-after time) and fail it over again, a fault of its own that Warden must survive too.
            RedisServer healed = poll(() -> servers.stream().filter(Sentinel::replicasOnline).findFirst()
                    .orElse(null), lastFailover + STEP_BOUND, () -> "no master has both replicas online again");
            System.out.printf("failover: port %d promoted %d ms after the kill; port %d has both replicas online %d ms"
                            + " later%n", promoted.port(), TimeUnit.NANOSECONDS.toMillis(promotedAt - killed),
                    healed.port(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - promotedAt));
        }

        /** @return every server's replication state and the end of every sentinel's log, for a failure message */
        private String state() {
            StringBuilder state = new StringBuilder();
            for (RedisServer server : servers) {
                state.append("\nserver ").append(server.port()).append(": ").append(!server.isRunning()
                        ? "not running" : replication(server).lines().filter(line -> line.startsWith("role")
                        || line.startsWith("master_") || line.contains("slave")).toList());
            }
            for (RedisServer sentinel : sentinels) {
                List<String> log = sentinel.recentLog().lines().toList();
                state.append("\nsentinel ").append(sentinel.port()).append(":\n  ")
                        .append(String.join("\n  ", log.subList(Math.max(0, log.size() - 25), log.size())));
            }
            return state.toString();
        }

        private static boolean replicasOnline(RedisServer server) {
            if (!server.isRunning()) {
                return false;
            }
            String info = replication(server);
            return info.contains("role:master") && info.contains("connected_slaves:" + REPLICAS)
                    && info.split("state=online", -1).length - 1 == REPLICAS;
        }

        /**
         * Asks the servers and sentinels every 50 ms until {@code probe} finds what it looks for; their state
         * changes without an event to wait for.
         *
         * @throws IllegalStateException with {@code missing} and the topology's state if it is not found by
         *                               {@code end}
         */
        private <T> T poll(Supplier<T> probe, long end, Supplier<String> missing) throws InterruptedException {
            while (System.nanoTime() - end < 0) {
                T found = probe.get();
                if (found != null) {
                    return found;
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
            throw new IllegalStateException(missing.get() + state());
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

        private RedisServer master() throws InterruptedException {
            return poll(this::namedMaster, System.nanoTime() + STEP_BOUND, () -> "the sentinels name no master");
        }

        /** @return the server that most sentinels name as the master, if it runs as one; null otherwise */
        private RedisServer namedMaster() {
            Map<Integer, Integer> votes = new HashMap<>();
            for (RedisServer sentinel : sentinels) {
                try {
                    List<?> address = (List<?>) sentinel.call("SENTINEL", "get-master-addr-by-name", MASTER);
                    votes.merge(Integer.parseInt(String.valueOf(address.get(1))), 1, Integer::sum);
                } catch (RuntimeException e) {
                    // A sentinel that does not answer names nobody.
                }
            }
            for (RedisServer server : servers) {
                if (votes.getOrDefault(server.port(), 0) * 2 > sentinels.size() && server.isRunning()
                        && replication(server).contains("role:master")) {
                    return server;
                }
            }
            return null;
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

        /** @param names the run's lock names, whose slots SLOT_MIGRATION moves */
        Cluster(List<String> names) {
            this.names = names;
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
     * A cluster of three masters with a replica each; clients require the acknowledgement of the slot's replica
     * ({@code cluster-acks}). CLUSTER_FAILOVER fails a lock name's master over gracefully; MASTER_KILL kills it,
     * waits for its replica to take over and brings it back, empty, as that replica's replica. The fault lasts
     * until the shard has a synchronised replica again: until then its grants cannot be acknowledged.
     */
    static final class ReplicatedCluster extends LockTarget {
        private static final Duration STEP_BOUND = Duration.ofSeconds(30);
        private final RedisCluster cluster = RedisCluster.start(3, 1);
        private final List<String> names;

        /** @param names the run's lock names, whose masters the failovers strike */
        ReplicatedCluster(List<String> names) {
            this.names = names;
        }

        @Override
        String spec() {
            return "cluster-acks|" + String.join(",", cluster.seedUris());
        }

        @Override
        void apply(Fault fault, long leaseMillis, Random random) throws InterruptedException {
            switch (fault) {
                case CLUSTER_FAILOVER -> {
                    RedisServer master = masterOfSomeLock(random);
                    long from = System.nanoTime();
                    RedisServer promoted = cluster.failover(master, STEP_BOUND);
                    System.out.printf("cluster-failover: port %d took over from %d in %d ms%n", promoted.port(),
                            master.port(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - from));
                }
                case MASTER_KILL -> {
                    RedisServer master = masterOfSomeLock(random);
                    long from = System.nanoTime();
                    RedisServer promoted = cluster.killMaster(master, STEP_BOUND);
                    long promotedAt = System.nanoTime();
                    cluster.rejoinAsReplica(master, promoted, STEP_BOUND);
                    System.out.printf("master-kill: port %d killed, %d promoted after %d ms, %d back as its replica"
                                    + " %d ms later%n", master.port(), promoted.port(),
                            TimeUnit.NANOSECONDS.toMillis(promotedAt - from), master.port(),
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - promotedAt));
                }
                default -> {
                    for (RedisServer node : cluster.nodes()) {
                        faultOne(node, fault, leaseMillis);
                    }
                }
            }
        }

        private RedisServer masterOfSomeLock(Random random) {
            String key = "faults:{" + names.get(random.nextInt(names.size())) + "}";
            RedisServer any = cluster.masters().get(0);
            return cluster.ownerOf(((Long) any.call("CLUSTER", "KEYSLOT", key)).intValue());
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
