package dev.warden.internal;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster. Lettuce routes each script by the slot of its first key (all keys of a lock share one hash
 * tag) and follows MOVED and ASK redirections during slot migrations and failovers.
 */
final class ClusterLink implements Link {
    private final RedisClusterClient client;
    private final StatefulRedisClusterConnection<String, String> connection;
    private final RedisVersion version;

    ClusterLink(RedisClusterClient client) {
        this.client = client;
        this.connection = client.connect(Utf8Codec.INSTANCE);
        this.version = RedisVersion.parse(connection.sync().info("server"));
    }

    @Override
    public RedisClusterAsyncCommands<String, String> commands() {
        return connection.async();
    }

    @Override
    public RedisClusterAsyncCommands<String, String> ackCommands() {
        throw new UnsupportedOperationException("replica acknowledgements are not supported with a cluster");
    }

    /**
     * Every node that the client's view of the cluster shows as a master serving slots, each over the connection
     * Lettuce keeps to it (opened on first use). A master without slots holds no keys but during a migration,
     * whose keys its source still has.
     */
    @Override
    public CompletableFuture<List<RedisClusterAsyncCommands<String, String>>> masters() {
        List<CompletableFuture<StatefulRedisConnection<String, String>>> connections = new ArrayList<>();
        for (RedisClusterNode node : connection.getPartitions()) {
            if (node.getRole().isUpstream() && !node.getSlots().isEmpty()) {
                connections.add(connection.getConnectionAsync(node.getNodeId()));
            }
        }
        if (connections.isEmpty()) {
            return CompletableFuture.failedFuture(new IllegalStateException("the cluster has no master with slots"));
        }
        return CompletableFuture.allOf(connections.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            List<RedisClusterAsyncCommands<String, String>> masters = new ArrayList<>(connections.size());
            connections.forEach(c -> masters.add(c.join().async()));
            return masters;
        });
    }

    @Override
    public CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
        return client.connectPubSubAsync(Utf8Codec.INSTANCE).thenApply(connection -> connection);
    }

    @Override
    public boolean cluster() {
        return true;
    }

    @Override
    public boolean sharded() {
        return version.atLeast(7, 0);
    }

    @Override
    public RedisVersion version() {
        return version;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
