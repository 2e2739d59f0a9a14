package dev.warden.internal.wire;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A client's connections to one Redis deployment: a shared command connection, a connection of its own for
 * operations followed by {@code WAIT} (opened when first needed; in a cluster, one per master), and pub/sub
 * connections for the notifier.
 */
public interface Link {
    /** @return the commands of the shared connection; Lettuce pipelines every thread's commands over it */
    RedisClusterAsyncCommands<String, String> commands();

    /**
     * Sends {@code command} on the shared connection, as {@link #commands()} sends its own. What is attached to the
     * command before this call runs on the connection's I/O thread when the answer comes, before any later answer on
     * the connection is handled: for a reply whose handling must see the client as it was when Redis answered.
     */
    <T> void dispatch(RedisCommand<String, String, T> command);

    /**
     * Runs {@code send} on the acknowledgement connection to the server that holds {@code key}: a connection of its
     * own (opened on first use), since {@code WAIT} blocks the connection it runs on, and the one connection that
     * carries both a script and its {@code WAIT}, since {@code WAIT} counts the acknowledgements of its own
     * connection's writes. {@code send} must send everything it sends at once, before any reply.
     *
     * @param key  a key of the script that {@code send} runs (in a cluster, every key shares its slot)
     * @param send sends the script and its {@code WAIT}, back to back, on the commands it is given
     * @return what {@code send} returns; in a cluster, sent again once to the node a redirection names
     */
    <T> CompletableFuture<T> acked(String key,
                                   Function<RedisClusterAsyncCommands<String, String>, CompletableFuture<T>> send);

    /**
     * The masters whose keys together are the deployment's: the server (or the master Sentinel names), or every
     * master of a cluster that serves slots, as the client's view of the cluster has it now. Listing locks scans
     * each of them; a key operation still goes through {@link #commands()}, which follows redirections.
     *
     * @return completes with the commands of each master's connection, or exceptionally if one cannot be connected
     */
    CompletableFuture<List<RedisClusterAsyncCommands<String, String>>> masters();

    /** @return a new pub/sub connection */
    CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub();

    /**
     * Told of every failed operation, so that the link can repair what Lettuce does not: a Sentinel link whose
     * connection answers from a replica asks Sentinel for the master again.
     *
     * @param error the failure, possibly wrapped by a future
     */
    default void failed(Throwable error) {
    }

    /** @return whether keys are spread over cluster slots, so that a script may only touch keys of one slot */
    boolean cluster();

    /** @return whether wake-ups use sharded pub/sub ({@code SSUBSCRIBE}/{@code SPUBLISH}) */
    boolean sharded();

    /**
     * @return whether a publication's reply counts every client that listens on the channel, so that a release can
     *         tell a waiter whose client stopped listening ({@code queue.lua}): true for a single server and for a
     *         cluster's sharded pub/sub
     */
    boolean receiversCounted();

    /** @return the server's version, read when the link connected */
    RedisVersion version();

    /** Closes every connection and the Lettuce client. */
    void close();
}
