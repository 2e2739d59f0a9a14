package dev.warden.redisserver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Redis Cluster of masters on loopback, joined with {@code CLUSTER MEET} and with the 16384 slots split
 * evenly by {@code CLUSTER ADDSLOTS}; slots can be migrated between nodes. {@link #close()} stops every node.
 */
public final class RedisCluster implements AutoCloseable {
    /** The number of hash slots of a Redis Cluster. */
    public static final int SLOTS = 16384;

    private final List<RedisServer> nodes;

    private RedisCluster(List<RedisServer> nodes) {
        this.nodes = nodes;
    }

    /**
     * Starts a cluster and waits until every node reports {@code cluster_state:ok}.
     *
     * @param masters how many masters, at least 3
     * @return the running cluster
     * @throws IllegalStateException if it does not form within 30 seconds
     */
    public static RedisCluster start(int masters) {
        return start(masters, node -> { });
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
    public static RedisCluster start(int masters, java.util.function.Consumer<RedisServer.Builder> settings) {
        java.util.Objects.requireNonNull(settings, "settings");
        if (masters < 3) {
            throw new IllegalArgumentException("masters must be at least 3: " + masters);
        }
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters; i++) {
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
                if (i > 0) {
                    nodes.get(0).call("CLUSTER", "MEET", nodes.get(i).host(), Integer.toString(nodes.get(i).port()));
                }
            }
            RedisCluster cluster = new RedisCluster(nodes);
            cluster.awaitState(Duration.ofSeconds(30));
            return cluster;
        } catch (RuntimeException e) {
            nodes.forEach(RedisServer::close);
            throw e;
        }
    }

    /** @return the nodes, in slot order: node i serves the i-th share of the slots at start */
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
     * @return the node that serves it, as the first node sees it
     */
    public RedisServer ownerOf(int slot) {
        for (RedisServer node : nodes) {
            if (servesSlot(node, slot)) {
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
        for (Object range : (List<?>) node.call("CLUSTER", "SLOTS")) {
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
