package dev.warden.internal.wire;

import dev.warden.internal.base.Errors;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Redis server, or the master that Sentinel names. Lettuce asks Sentinel for the master's address whenever it
 * reconnects; this link also asks again when its connection turns out to reach a replica (see {@link #failed}).
 */
final class StandaloneLink implements Link {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneLink.class);
    private final RedisClient client;
    private final RedisURI uri;
    private final boolean sentinel;
    private final AtomicBoolean relocating = new AtomicBoolean();
    private volatile StatefulRedisConnection<String, String> connection;
    private volatile StatefulRedisConnection<String, String> ackConnection;
    private volatile boolean closed;
    private final RedisVersion version;

    StandaloneLink(RedisClient client, RedisURI uri) {
        this.client = client;
        this.uri = uri;
        this.sentinel = !uri.getSentinels().isEmpty();
        this.connection = client.connect(Utf8Codec.INSTANCE, uri);
        this.version = readVersion(connection);
    }

    /**
     * Reads the server's version once, for {@link RedisVersion#require}; best effort, since the check only makes an
     * old server's failure clearer (its first script fails loudly anyway). A user whom an ACL denies {@code INFO},
     * or a server that does not answer within the command timeout, leaves the version
     * {@link RedisVersion#UNKNOWN}; a broken connection fails the connect.
     */
    private RedisVersion readVersion(StatefulRedisConnection<String, String> connection) {
        try {
            return RedisVersion.parse(connection.async().info("server")
                    .get(uri.getTimeout().toNanos(), TimeUnit.NANOSECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return RedisVersion.UNKNOWN;
        } catch (java.util.concurrent.TimeoutException e) {
            LOG.debug("no answer to INFO from {} within {}: its version is not checked", uri, uri.getTimeout());
            return RedisVersion.UNKNOWN;
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = Errors.unwrap(e);
            if (cause instanceof RedisCommandExecutionException || cause instanceof RedisCommandTimeoutException) {
                LOG.debug("INFO refused or unanswered by {}: its version is not checked: {}", uri, cause.toString());
                return RedisVersion.UNKNOWN;
            }
            throw cause instanceof RuntimeException runtime ? runtime : new RedisException(cause);
        }
    }

    @Override
    public RedisVersion version() {
        return version;
    }

    @Override
    public RedisClusterAsyncCommands<String, String> commands() {
        return connection.async();
    }

    @Override
    public <T> void dispatch(RedisCommand<String, String, T> command) {
        connection.dispatch(command);
    }

    @Override
    public <T> CompletableFuture<T> acked(String key,
            Function<RedisClusterAsyncCommands<String, String>, CompletableFuture<T>> send) {
        return send.apply(ackCommands());
    }

    private RedisClusterAsyncCommands<String, String> ackCommands() {
        StatefulRedisConnection<String, String> ack = ackConnection;
        if (ack == null) {
            synchronized (this) {
                if (ackConnection == null) {
                    ackConnection = client.connect(Utf8Codec.INSTANCE, uri);
                }
                ack = ackConnection;
            }
        }
        return ack.async();
    }

    @Override
    public CompletableFuture<List<RedisClusterAsyncCommands<String, String>>> masters() {
        return CompletableFuture.completedFuture(List.of(commands()));
    }

    @Override
    public CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
        return client.connectPubSubAsync(Utf8Codec.INSTANCE, uri).toCompletableFuture();
    }

    /**
     * After a failover, Lettuce may reconnect to the old master's address before Sentinel has moved on from it;
     * once that server is made a replica, the connection is healthy but every write answers READONLY, for good.
     * On such an answer, both command connections are replaced by new ones to the master Sentinel names now.
     * Pub/sub needs no repair: a replica relays its master's publications.
     */
    @Override
    public void failed(Throwable error) {
        if (!sentinel || closed || !readOnly(Errors.unwrap(error)) || !relocating.compareAndSet(false, true)) {
            return;
        }
        StatefulRedisConnection<String, String> oldAck = ackConnection;
        CompletableFuture<StatefulRedisConnection<String, String>> command =
                client.connectAsync(Utf8Codec.INSTANCE, uri).toCompletableFuture();
        CompletableFuture<StatefulRedisConnection<String, String>> ack = oldAck == null
                ? CompletableFuture.completedFuture(null)
                : client.connectAsync(Utf8Codec.INSTANCE, uri).toCompletableFuture();
        command.thenAcceptBoth(ack, this::replace).whenComplete((ignored, failure) -> {
            if (failure != null) {
                // Lettuce keeps reconnecting the old connections; the next READONLY answer tries again.
                command.thenAccept(StatefulRedisConnection::closeAsync);
                ack.thenAccept(c -> {
                    if (c != null) {
                        c.closeAsync();
                    }
                });
            }
            relocating.set(false);
        });
    }

    private synchronized void replace(StatefulRedisConnection<String, String> command,
                                      StatefulRedisConnection<String, String> ack) {
        if (closed) {
            command.closeAsync();
            if (ack != null) {
                ack.closeAsync();
            }
            return;
        }
        StatefulRedisConnection<String, String> oldCommand = connection;
        connection = command;
        oldCommand.closeAsync();
        if (ack != null) {
            StatefulRedisConnection<String, String> oldAck = ackConnection;
            ackConnection = ack;
            oldAck.closeAsync();
        }
    }

    private static boolean readOnly(Throwable error) {
        // A write answers "READONLY ..."; inside a script, the same reply is wrapped in the script's error.
        return error instanceof RedisException && error.getMessage() != null
                && error.getMessage().contains("READONLY");
    }

    @Override
    public boolean cluster() {
        return false;
    }

    @Override
    public boolean sharded() {
        return false;
    }

    /** Not with Sentinel: after a failover the pub/sub connection may stay on the old master, now a replica. */
    @Override
    public boolean receiversCounted() {
        return !sentinel;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (ackConnection != null) {
            ackConnection.close();
        }
        connection.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
