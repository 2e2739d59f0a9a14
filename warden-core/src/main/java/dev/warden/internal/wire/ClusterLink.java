package dev.warden.internal.wire;

import dev.warden.internal.base.Errors;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis Cluster. Lettuce routes each script by the slot of its first key (all keys of a lock share one hash
 * tag) and follows MOVED and ASK redirections during slot migrations and failovers. Operations followed by
 * {@code WAIT} run on a second cluster connection's node connections, each to the master of the keys' slot
 * ({@link #acked}).
 */
final class ClusterLink implements Link {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterLink.class);
    private final RedisClusterClient client;
    private final StatefulRedisClusterConnection<String, String> connection;
    private final RedisVersion version;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private volatile CompletableFuture<StatefulRedisClusterConnection<String, String>> ackConnection;
    /** Closed: no acknowledgement connection opens any more. Guarded by this. */
    private boolean closed;

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
    public <T> void dispatch(RedisCommand<String, String, T> command) {
        connection.dispatch(command);
    }

    /**
     * Sends on the connection to the master of the key's slot that the acknowledgement connection keeps (a cluster
     * connection of its own, so that a {@code WAIT} never blocks the shared connection's commands to that node).
     * Lettuce's node connections do not follow redirections, so a {@code MOVED} or {@code ASK} answer (a slot
     * that moved, a failover the client's view has not caught up with) is followed here, once, and the view
     * refreshed.
     */
    @Override
    public <T> CompletableFuture<T> acked(String key,
            Function<RedisClusterAsyncCommands<String, String>, CompletableFuture<T>> send) {
        int slot = SlotHash.getSlot(key);
        return ackConnection().thenCompose(acks -> {
            RedisClusterNode master = acks.getPartitions().getMasterBySlot(slot);
            if (master == null) {
                refresh();
                return CompletableFuture.<T>failedFuture(new RedisException("no master serves slot " + slot
                        + " in the client's view of the cluster"));
            }
            RedisURI uri = master.getUri();
            return sendTo(acks, uri.getHost(), uri.getPort(), false, send).exceptionallyCompose(error -> {
                Throwable cause = Errors.unwrap(error);
                Redirect redirect = Redirect.of(cause);
                if (redirect == null) {
                    if (cause instanceof RedisConnectionException || cause instanceof RedisCommandTimeoutException) {
                        // The master may have died and been replaced: the next try asks the new view.
                        refresh();
                    }
                    return CompletableFuture.failedFuture(error);
                }
                refresh();
                return sendTo(acks, redirect.host(), redirect.port(), redirect.ask(), send);
            });
        });
    }

    private static <T> CompletableFuture<T> sendTo(StatefulRedisClusterConnection<String, String> acks, String host,
            int port, boolean ask,
            Function<RedisClusterAsyncCommands<String, String>, CompletableFuture<T>> send) {
        return acks.getConnectionAsync(host, port).thenCompose(node -> {
            RedisClusterAsyncCommands<String, String> commands = node.async();
            if (!ask) {
                return send.apply(commands);
            }
            // ASKING admits the next command only, so it goes out right before the script, both at once.
            CompletableFuture<String> asking = commands.asking().toCompletableFuture();
            CompletableFuture<T> sent = send.apply(commands);
            return asking.thenCombine(sent, (ok, reply) -> reply);
        });
    }

    /** The acknowledgement connection, opened on first use. */
    private CompletableFuture<StatefulRedisClusterConnection<String, String>> ackConnection() {
        CompletableFuture<StatefulRedisClusterConnection<String, String>> acks = ackConnection;
        if (acks == null) {
            synchronized (this) {
                if (closed) {
                    return CompletableFuture.failedFuture(new IllegalStateException("the link is closed"));
                }
                acks = ackConnection;
                if (acks == null) {
                    acks = client.connectAsync(Utf8Codec.INSTANCE);
                    ackConnection = acks;
                    // A failed connect is not kept: the next acknowledged operation tries again.
                    acks.whenComplete((connection, error) -> {
                        if (error != null) {
                            forgetAckConnection();
                        }
                    });
                }
            }
        }
        return acks;
    }

    private synchronized void forgetAckConnection() {
        if (ackConnection != null && ackConnection.isCompletedExceptionally()) {
            ackConnection = null;
        }
    }

    /** Asks the cluster for its topology again, unless a refresh is under way. */
    private void refresh() {
        if (!refreshing.compareAndSet(false, true)) {
            return;
        }
        client.refreshPartitionsAsync().whenComplete((ignored, error) -> {
            refreshing.set(false);
            if (error != null) {
                LOG.debug("refreshing the cluster's topology failed; the next redirection tries again: {}",
                        error.toString());
            }
        });
    }

    /** A {@code MOVED} or {@code ASK} answer: where the slot is served now, or for the next command only. */
    record Redirect(String host, int port, boolean ask) {
        /** @return the redirection an error is, or null if it is none */
        static Redirect of(Throwable error) {
            String message = error instanceof RedisCommandExecutionException ? error.getMessage() : null;
            if (message == null || !(message.startsWith("MOVED ") || message.startsWith("ASK "))) {
                return null;
            }
            String[] parts = message.split(" ");
            if (parts.length < 3) {
                return null;
            }
            int colon = parts[2].lastIndexOf(':');
            if (colon < 0) {
                return null;
            }
            try {
                return new Redirect(parts[2].substring(0, colon), Integer.parseInt(parts[2].substring(colon + 1)),
                        message.startsWith("ASK "));
            } catch (NumberFormatException e) {
                return null;
            }
        }
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

    /** Only sharded pub/sub: a plain PUBLISH in a cluster counts the receivers on the node that ran it. */
    @Override
    public boolean receiversCounted() {
        return sharded();
    }

    @Override
    public RedisVersion version() {
        return version;
    }

    @Override
    public void close() {
        CompletableFuture<StatefulRedisClusterConnection<String, String>> acks;
        synchronized (this) {
            closed = true;
            acks = ackConnection;
        }
        if (acks != null) {
            acks.whenComplete((ack, error) -> {
                if (ack != null) {
                    ack.close();
                }
            });
        }
        connection.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
