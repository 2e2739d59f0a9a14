package dev.warden.redisserver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A real Redis Cluster of masters on loopback, joined with {@code CLUSTER MEET} and with the 16384 slots split
 * evenly by {@code CLUSTER ADDSLOTS}, optionally with replicas; slots can be migrated between nodes, and masters
 * failed over gracefully ({@link #failover}) or killed so that their replicas take over ({@link #killMaster}).
 * {@link #close()} stops every node.
 */
public final class RedisCluster implements AutoCloseable {
    /** The number of hash slots of a Redis Cluster. */
    public static final int SLOTS = 16384;

    private final List<RedisServer> nodes;

    private RedisCluster(List<RedisServer> nodes) {
        this.nodes = nodes;
    }

    /**
     * Starts a cluster of masters without replicas and waits until every node reports {@code cluster_state:ok}.
     *
     * @param masters how many masters, at least 3
     * @return the running cluster
     * @throws IllegalStateException if it does not form within 30 seconds
     */
    public static RedisCluster start(int masters) {
        return start(masters, 0);
    }

    /**
     * Starts a cluster of masters, each with {@code replicasPerMaster} replicas ({@code CLUSTER REPLICATE}), and
     * waits until every replica has synchronised with its master and every node reports {@code cluster_state:ok}.
     * Nodes time out after 2 s ({@link RedisServer.Builder#cluster()}), so a killed master's replica takes over
     * within a few seconds.
     *
     * @param masters           how many masters, at least 3
     * @param replicasPerMaster how many replicas each master has, 0 or more
     * @return the running cluster
     * @throws IllegalStateException if it does not form within 30 seconds
     */
    public static RedisCluster start(int masters, int replicasPerMaster) {
        return start(masters, replicasPerMaster, node -> { });
    }

    /**
     * Starts a cluster whose nodes are built with extra settings, such as {@link RedisServer.Builder#tls(
     * java.nio.file.Path, java.nio.file.Path, java.nio.file.Path) tls} for a cluster that speaks TLS only (its bus
     * too), and waits until every node reports {@code cluster_state:ok}.
     *
     * @param masters  how many masters, at least 3
     * @param settings applied to each node's builder after {@link RedisServer.Builder#cluster()}
     * @return the running cluster
     * @throws IllegalStateException if it does not form within 30 seconds
     */
    public static RedisCluster start(int masters, Consumer<RedisServer.Builder> settings) {
        return start(masters, 0, settings);
    }

    /**
     * Starts a cluster of masters with replicas, each node built with extra settings; see
     * {@link #start(int, int)} and {@link #start(int, Consumer)}.
     *
     * @param masters           how many masters, at least 3
     * @param replicasPerMaster how many replicas each master has, 0 or more
     * @param settings          applied to each node's builder after {@link RedisServer.Builder#cluster()}
     * @return the running cluster
     * @throws IllegalStateException if it does not form within 30 seconds
     */
    public static RedisCluster start(int masters, int replicasPerMaster,
                                     Consumer<RedisServer.Builder> settings) {
        Objects.requireNonNull(settings, "settings");
        if (masters < 3) {
            throw new IllegalArgumentException("masters must be at least 3: " + masters);
        }
        if (replicasPerMaster < 0) {
            throw new IllegalArgumentException("replicasPerMaster must not be negative: " + replicasPerMaster);
        }
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
                RedisServer.Builder node = RedisServer.builder().cluster();
                settings.accept(node);
                nodes.add(node.start());
            }
            for (int i = 0; i < masters; i++) {
                int from = i * SLOTS / masters;
                int to = (i + 1) * SLOTS / masters;
                List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
                for (int slot = from; slot < to; slot++) {
                    command.add(Integer.toString(slot));
                }
                nodes.get(i).call(command.toArray(String[]::new));
            }
            for (int i = 1; i < nodes.size(); i++) {
                nodes.get(0).call("CLUSTER", "MEET", nodes.get(i).host(), Integer.toString(nodes.get(i).port()));
            }
            RedisCluster cluster = new RedisCluster(nodes);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (int i = masters; i < nodes.size(); i++) {
                RedisServer replica = nodes.get(i);
                String master = cluster.nodeId(nodes.get((i - masters) % masters));
                // A replica can follow a master only once gossip has told it of that master.
                awaitTrue(() -> ((String) replica.call("CLUSTER", "NODES")).contains(master), end,
                        () -> "port " + replica.port() + " never learnt of master " + master);
                replica.call("CLUSTER", "REPLICATE", master);
            }
            for (int i = masters; i < nodes.size(); i++) {
                nodes.get(i).awaitReplicaSync(Duration.ofSeconds(30));
            }
            cluster.awaitState(Duration.ofSeconds(30));
            return cluster;
        } catch (RuntimeException e) {
            nodes.forEach(RedisServer::close);
            throw e;
        }
    }

    /**
     * @return every node: first the masters at start, in slot order (node i served the i-th share of the slots),
     *         then their replicas (replica j followed master j modulo the number of masters); a failover changes
     *         the roles, not this list
     */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** @return a seed URI ({@code redis://127.0.0.1:PORT} of the first node, {@code rediss://} over TLS) */
    public String seedUri() {
        return nodes.get(0).uri();
    }

    /**
     * @param node a node of this cluster
     * @return its cluster node id
     */
    public String nodeId(RedisServer node) {
        return (String) node.call("CLUSTER", "MYID");
    }

    /**
     * @param slot a hash slot
     * @return the running node that serves it, as it sees itself
     */
    public RedisServer ownerOf(int slot) {
        for (RedisServer node : nodes) {
            if (node.isRunning() && servesSlot(node, slot)) {
                return node;
            }
        }
        throw new IllegalStateException("no node serves slot " + slot);
    }

    /**
     * Moves a slot and its keys from one node to another, the way {@code redis-cli --cluster reshard} does: mark
     * it importing and migrating, MIGRATE its keys, then assign it on every node.
     *
     * @param slot the slot
     * @param from its current owner
     * @param to   the new owner
     */
    public void migrateSlot(int slot, RedisServer from, RedisServer to) {
        String s = Integer.toString(slot);
        to.call("CLUSTER", "SETSLOT", s, "IMPORTING", nodeId(from));
        from.call("CLUSTER", "SETSLOT", s, "MIGRATING", nodeId(to));
        while (true) {
            List<?> keys = (List<?>) from.call("CLUSTER", "GETKEYSINSLOT", s, "100");
            if (keys.isEmpty()) {
                break;
            }
            List<String> command = new ArrayList<>(List.of("MIGRATE", to.host(), Integer.toString(to.port()), "",
                    "0", "5000", "KEYS"));
            keys.forEach(key -> command.add((String) key));
            from.call(command.toArray(String[]::new));
        }
        for (RedisServer node : nodes) {
            node.call("CLUSTER", "SETSLOT", s, "NODE", nodeId(to));
        }
    }

    /**
     * @param node a running node of this cluster
     * @return whether it is a master now, by its own {@code ROLE}
     */
    public boolean isMaster(RedisServer node) {
        return "master".equals(((List<?>) node.call("ROLE")).get(0));
    }

    /** @return the running nodes that are masters now, by their own {@code ROLE} */
    public List<RedisServer> masters() {
        List<RedisServer> masters = new ArrayList<>();
        for (RedisServer node : nodes) {
            if (node.isRunning() && isMaster(node)) {
                masters.add(node);
            }
        }
        return masters;
    }

    /**
     * @param master a master of this cluster
     * @return a running node configured as its replica, whether or not its replication link is up now, if any
     */
    public Optional<RedisServer> replicaOf(RedisServer master) {
        String id = nodeId(master);
        for (RedisServer node : nodes) {
            if (node != master && node.isRunning() && id.equals(masterIdOf(node))) {
                return Optional.of(node);
            }
        }
        return Optional.empty();
    }

    /**
     * A graceful failover: {@code CLUSTER FAILOVER} on a replica of {@code master}. The master stops its clients'
     * writes until the replica has caught up with it, then the replica takes over its slots, so nothing
     * acknowledged to a client is lost. Returns once every running node names the new master for the old one's
     * slots and the old master follows it.
     *
     * @param master a master with a replica whose link is up
     * @param bound  the longest wait
     * @return the promoted replica
     * @throws IllegalStateException if it has no such replica or the failover does not complete in time
     */
    public RedisServer failover(RedisServer master, Duration bound) {
        long end = System.nanoTime() + bound.toNanos();
        String id = nodeId(master);
        RedisServer replica = replicaOf(master).filter(node -> replicates(node, id)).orElseThrow(() ->
                new IllegalStateException("port " + master.port() + " has no replica online"));
        int slot = firstSlot(master);
        replica.call("CLUSTER", "FAILOVER");
        awaitTrue(() -> ownsEverywhere(replica, slot) && replicates(master, nodeId(replica)), end,
                () -> "CLUSTER FAILOVER of port " + master.port() + " to " + replica.port() + " did not complete"
                        + state());
        return replica;
    }

    /**
     * Kills a master (SIGKILL) and waits until its replica has taken over its slots on every running node, as the
     * cluster does by itself once the master is silent for the node timeout. The master's writes that had not
     * reached the replica are lost (replication is asynchronous). The killed node stays down; see
     * {@link #rejoinAsReplica}.
     *
     * @param master a master with a replica (whose link may be down: a replica cut off takes over all the same, with
     *               what it had)
     * @param bound  the longest wait
     * @return the promoted replica
     * @throws IllegalStateException if it has no such replica or no replica takes over in time
     */
    public RedisServer killMaster(RedisServer master, Duration bound) {
        long end = System.nanoTime() + bound.toNanos();
        RedisServer replica = replicaOf(master).orElseThrow(() ->
                new IllegalStateException("port " + master.port() + " has no replica"));
        int slot = firstSlot(master);
        master.kill();
        awaitTrue(() -> ownsEverywhere(replica, slot), end,
                () -> "no replica took over from the killed master on port " + master.port() + state());
        return replica;
    }

    /**
     * Waits until every running node says that {@code owner} serves {@code slot}, as after a failover the cluster
     * made by itself.
     *
     * @param slot  a hash slot
     * @param owner the node expected to serve it
     * @param bound the longest wait
     * @throws IllegalStateException if not every running node says so in time
     */
    public void awaitOwner(int slot, RedisServer owner, Duration bound) {
        awaitTrue(() -> ownsEverywhere(owner, slot), System.nanoTime() + bound.toNanos(),
                () -> "port " + owner.port() + " does not serve slot " + slot + " on every node" + state());
    }

    /** @return a seed URI of every node, for a client that must find the cluster with any node down */
    public String[] seedUris() {
        return nodes.stream().map(RedisServer::uri).toArray(String[]::new);
    }

    /**
     * Restarts a node that {@link #killMaster} killed, empty. It keeps its cluster configuration file, so it comes
     * back with its old node id, learns that its slots have a newer owner, and follows it as a replica (a master
     * that rejoins waits before it accepts writes, to let the cluster reconfigure it). Returns once it has
     * synchronised with that owner.
     *
     * @param node      the killed node
     * @param promoted  the replica that took over its slots
     * @param bound     the longest wait
     * @throws IllegalStateException if it does not become a synchronised replica of {@code promoted} in time
     */
    public void rejoinAsReplica(RedisServer node, RedisServer promoted, Duration bound) {
        long end = System.nanoTime() + bound.toNanos();
        node.restart();
        String id = nodeId(promoted);
        awaitTrue(() -> replicates(node, id), end,
                () -> "port " + node.port() + " did not rejoin as a replica of " + promoted.port() + state());
    }

    /** @return each running node's view of the cluster, for a failure message */
    public String state() {
        StringBuilder state = new StringBuilder();
        for (RedisServer node : nodes) {
            state.append("\nnode ").append(node.port()).append(": ");
            try {
                state.append(node.isRunning() ? node.call("ROLE") : "not running");
            } catch (RuntimeException e) {
                state.append(e.getMessage());
            }
        }
        return state.toString();
    }

    /** @return whether {@code node} runs as a replica of the node {@code masterId} with its link up and synced */
    private boolean replicates(RedisServer node, String masterId) {
        try {
            String info = (String) node.call("INFO", "replication");
            return info.contains("role:slave") && info.contains("master_link_status:up")
                    && !info.contains("master_sync_in_progress:1") && masterId.equals(masterIdOf(node));
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** @return the id of the master {@code node} is configured to follow, by its own view; null for a master */
    private static String masterIdOf(RedisServer node) {
        try {
            for (String line : ((String) node.call("CLUSTER", "NODES")).split("\n")) {
                if (line.contains("myself")) {
                    String master = line.split(" ")[3];
                    return master.equals("-") ? null : master;
                }
            }
            return null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** @return whether every running node says that {@code owner} serves {@code slot} */
    private boolean ownsEverywhere(RedisServer owner, int slot) {
        for (RedisServer node : nodes) {
            if (node.isRunning()) {
                try {
                    if (!servesSlotAsSeenBy(node, owner, slot)) {
                        return false;
                    }
                } catch (RuntimeException e) {
                    return false;
                }
            }
        }
        return true;
    }

    private static int firstSlot(RedisServer master) {
        for (Object range : (List<?>) master.call("CLUSTER", "SLOTS")) {
            List<?> r = (List<?>) range;
            if (((Long) ((List<?>) r.get(2)).get(1)) == master.port()) {
                return ((Long) r.get(0)).intValue();
            }
        }
        throw new IllegalStateException("port " + master.port() + " serves no slot");
    }

    /** Polls every 50 ms: cluster state changes come by gossip, without an event to wait for. */
    private static void awaitTrue(BooleanSupplier condition, long end, Supplier<String> failure) {
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException(failure.get());
            }
            try {
                TimeUnit.MILLISECONDS.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    /**
     * Waits until every running node has logged {@code Cluster state changed: ok}.
     *
     * @param bound the longest wait per node
     * @throws IllegalStateException if one does not in time
     */
    public void awaitState(Duration bound) {
        for (RedisServer node : nodes) {
            if (node.isRunning()) {
                node.awaitLog("Cluster state changed: ok", bound);
            }
        }
    }

    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }

    private static boolean servesSlot(RedisServer node, int slot) {
        return servesSlotAsSeenBy(node, node, slot);
    }

    private static boolean servesSlotAsSeenBy(RedisServer viewer, RedisServer node, int slot) {
        for (Object range : (List<?>) viewer.call("CLUSTER", "SLOTS")) {
            List<?> r = (List<?>) range;
            long from = (Long) r.get(0);
            long to = (Long) r.get(1);
            List<?> master = (List<?>) r.get(2);
            if (slot >= from && slot <= to && ((Long) master.get(1)) == node.port()) {
                return true;
            }
        }
        return false;
    }
}
