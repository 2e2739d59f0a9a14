package dev.warden.internal;

import dev.warden.LockConfig;
import dev.warden.LockException;
import dev.warden.LockInfo;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connections to one Redis deployment (a server, a Sentinel-managed master, or a cluster): its {@link Link},
 * the {@link Scripts} sent over it, the pub/sub {@link Notifier}, and the random id its releases announce. Its
 * threads are the client's {@link SharedResources}; a quorum has one of these per server.
 */
final class Server {
    private static final Logger LOG = LoggerFactory.getLogger(Server.class);
    /** How long {@link #close()} waits for the pub/sub connection to close. */
    private static final long PUBSUB_CLOSE_MILLIS = 2_000;

    private final Link link;
    private final Scripts scripts;
    private final Notifier notifier;
    private final String instanceId;

    private Server(Link link, String instanceId, SharedResources shared, String where) {
        link.version().require(where);
        this.link = link;
        this.instanceId = instanceId;
        this.scripts = new Scripts(link);
        this.notifier = new Notifier(link, instanceId, shared.scheduler());
    }

    /**
     * Connects to the deployment of {@code config} ({@link LockConfig.Topology#SINGLE}, {@code SENTINEL} or
     * {@code CLUSTER}) on the shared threads.
     *
     * @throws LockException if Redis cannot be reached, refuses the connection, or is older than Warden needs
     *                       ({@link RedisVersion#REQUIRED}); nothing is left open
     */
    static Server connect(LockConfig config, SharedResources shared, String instanceId) {
        List<RedisURI> uris = new ArrayList<>();
        for (String text : config.redisUris()) {
            RedisURI uri = RedisUris.parse(text);
            config.password().ifPresent(password -> RedisUris.authenticate(text, uri, password));
            uri.setTimeout(config.commandTimeout());
            uri.setClientName(config.clientName());
            uris.add(uri);
        }
        SocketOptions socket = SocketOptions.builder()
                .connectTimeout(config.commandTimeout())
                .keepAlive(true)
                .build();
        TimeoutOptions timeouts = TimeoutOptions.enabled(config.commandTimeout());
        AbstractRedisClient redis;
        Supplier<Link> link;
        if (config.topology() == LockConfig.Topology.CLUSTER) {
            RedisClusterClient cluster = RedisClusterClient.create(shared.lettuce(), uris);
            cluster.setOptions(ClusterClientOptions.builder()
                    .autoReconnect(true)
                    .timeoutOptions(timeouts)
                    .socketOptions(socket)
                    .sslOptions(ssl(config))
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers()
                            .build())
                    .build());
            redis = cluster;
            link = () -> new ClusterLink(cluster);
        } else {
            RedisClient single = RedisClient.create(shared.lettuce());
            single.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .timeoutOptions(timeouts)
                    .socketOptions(socket)
                    .sslOptions(ssl(config))
                    .build());
            redis = single;
            link = () -> new StandaloneLink(single, uris.get(0));
        }
        try {
            return new Server(link.get(), instanceId, shared, config.redisUriForDisplay());
        } catch (RuntimeException e) {
            LockException failure = Errors.translate(e, "connect to " + config.redisUriForDisplay());
            try {
                redis.shutdown(0, 1, TimeUnit.SECONDS);
            } catch (RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            throw failure;
        }
    }

    /**
     * The TLS settings of {@code rediss://} connections: the configured trusted certificates instead of the JVM's
     * trust store, and a client certificate for mutual TLS, where set; Lettuce's defaults otherwise.
     */
    private static SslOptions ssl(LockConfig config) {
        SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider();
        config.tlsTrustedCertificates().ifPresent(pem -> ssl.trustManager(pem.toFile()));
        config.tlsClientCertificate().ifPresent(chain ->
                ssl.keyManager(chain.toFile(), config.tlsClientKey().orElseThrow().toFile(), null));
        return ssl.build();
    }

    /**
     * Reads one lock's state with the inspect script, then the identity records of its holder and waiters that
     * {@code identities} has not read yet; not counted in flight.
     */
    CompletableFuture<LockInfo> inspect(String name, LockKeys keys, IdentityReader identities) {
        return scripts.inspect(keys).thenCompose(state -> identities.info(name, state));
    }

    /**
     * @return this deployment as a source of a listing of locks under {@code prefix}: its masters, and inspect,
     *         reading each client's identity record once for the listing
     */
    LockListing.Source<LockInfo> listingSource(String prefix) {
        IdentityReader identities = new IdentityReader(scripts, prefix);
        return listingSource(name -> inspect(name, LockKeys.of(prefix, name), identities));
    }

    /** @return this deployment as a source of a listing whose locks {@code inspect} reads, not counted in flight */
    <T> LockListing.Source<T> listingSource(Function<String, CompletableFuture<T>> inspect) {
        return new LockListing.Source<>(link.masters(), inspect);
    }

    Scripts scripts() {
        return scripts;
    }

    Notifier notifier() {
        return notifier;
    }

    /** A random id of this client, sent as the wake-up message of its releases. */
    String instanceId() {
        return instanceId;
    }

    /** @return whether this is a cluster, where replica acknowledgements are not available */
    boolean cluster() {
        return link.cluster();
    }

    /**
     * Closes the pub/sub side and the connections; the shared threads stay. The pub/sub connection is closed first,
     * and waited for (at most {@link #PUBSUB_CLOSE_MILLIS}): Lettuce's shutdown closes every connection of its
     * client, and warns of one whose close had begun but not ended ("Connection is already closed").
     */
    void close() {
        CompletableFuture<Void> pubSubClosed = notifier.close();
        try {
            pubSubClosed.get(PUBSUB_CLOSE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // Not closed in time: the shutdown below closes it, with Lettuce's warning. A failure was logged.
            LOG.debug("pub/sub connection not closed within {} ms: {}", PUBSUB_CLOSE_MILLIS, e.toString());
        }
        link.close();
    }
}
