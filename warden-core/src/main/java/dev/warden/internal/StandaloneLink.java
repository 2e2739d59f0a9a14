package dev.warden.internal;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** One Redis server, or the master that Sentinel names (Lettuce follows it across failovers). */
final class StandaloneLink implements Link {
    private final RedisClient client;
    private final RedisURI uri;
    private final StatefulRedisConnection<String, String> connection;
    private StatefulRedisConnection<String, String> ackConnection;

    StandaloneLink(RedisClient client, RedisURI uri) {
        this.client = client;
        this.uri = uri;
        this.connection = client.connect(StringCodec.UTF8, uri);
    }

    @Override
    public RedisClusterAsyncCommands<String, String> commands() {
        return connection.async();
    }

    @Override
    public synchronized RedisClusterAsyncCommands<String, String> ackCommands() {
        if (ackConnection == null) {
            ackConnection = client.connect(StringCodec.UTF8, uri);
        }
        return ackConnection.async();
    }

    @Override
    public CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
        return client.connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture();
    }

    @Override
    public boolean cluster() {
        return false;
    }

    @Override
    public boolean sharded() {
        return false;
    }

    @Override
    public synchronized void close() {
        if (ackConnection != null) {
            ackConnection.close();
        }
        connection.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
