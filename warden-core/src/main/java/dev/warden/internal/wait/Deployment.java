package dev.warden.internal.wait;

import dev.warden.LockConfig;
import dev.warden.internal.script.Scripts;
import dev.warden.internal.wire.Server;
import dev.warden.internal.wire.SharedResources;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connected Redis deployment as the locks use it: its {@link Server} connections, the {@link Scripts} sent over
 * them, the pub/sub {@link Notifier} that wakes waiters, and the random id its releases announce. A client has one;
 * a quorum one per server. Immutable.
 */
public final class Deployment {
    private static final Logger LOG = LoggerFactory.getLogger(Deployment.class);
    /** How long {@link #close()} waits for the pub/sub connection to close. */
    private static final long PUBSUB_CLOSE_MILLIS = 2_000;

    private final Server server;
    private final Scripts scripts;
    private final Notifier notifier;
    private final String instanceId;

    private Deployment(Server server, String instanceId, ScheduledExecutorService scheduler) {
        this.server = server;
        this.instanceId = instanceId;
        this.scripts = new Scripts(server.link());
        this.notifier = new Notifier(server.link(), instanceId, scheduler);
    }

    /**
     * Connects to the deployment of {@code config} on the shared threads.
     *
     * @throws dev.warden.LockException if Redis cannot be reached or refuses the connection; nothing is left open
     */
    public static Deployment connect(LockConfig config, SharedResources shared, String instanceId) {
        return new Deployment(Server.connect(config, shared), instanceId, shared.scheduler());
    }

    public Scripts scripts() {
        return scripts;
    }

    public Notifier notifier() {
        return notifier;
    }

    /** A random id of this client, sent as the wake-up message of its releases. */
    public String instanceId() {
        return instanceId;
    }

    /** @return whether this is a cluster, where replica acknowledgements are not available */
    public boolean cluster() {
        return server.cluster();
    }

    /** @return the deployment's masters: the server, or every master of a cluster */
    public CompletableFuture<List<RedisClusterAsyncCommands<String, String>>> masters() {
        return server.link().masters();
    }

    /**
     * Closes the pub/sub side and the connections; the shared threads stay. The pub/sub connection is closed first,
     * and waited for (at most {@link #PUBSUB_CLOSE_MILLIS}): Lettuce's shutdown closes every connection of its
     * client, and warns of one whose close had begun but not ended ("Connection is already closed").
     */
    public void close() {
        CompletableFuture<Void> pubSubClosed = notifier.close();
        try {
            pubSubClosed.get(PUBSUB_CLOSE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // Not closed in time: the shutdown below closes it, with Lettuce's warning. A failure was logged.
            LOG.debug("pub/sub connection not closed within {} ms: {}", PUBSUB_CLOSE_MILLIS, e.toString());
        }
        server.close();
    }
}
