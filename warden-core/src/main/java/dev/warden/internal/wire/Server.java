package dev.warden.internal.wire;

import dev.warden.LockConfig;
import dev.warden.LockException;
import dev.warden.internal.base.Errors;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The connections to one Redis deployment (a server, a Sentinel-managed master, or a cluster): its {@link Link},
 * on the client's {@link SharedResources} threads. What is sent over them ({@code Scripts}) and who listens on them
 * (the notifier) belong to the layers above; a quorum has one of these per server.
 */
public final class Server {
    private final Link link;

    private Server(Link link, String where) {
        link.version().require(where);
        this.link = link;
    }

    /**
     * Connects to the deployment of {@code config} ({@link LockConfig.Topology#SINGLE}, {@code SENTINEL} or
     * {@code CLUSTER}) on the shared threads.
     *
     * @throws LockException if Redis cannot be reached, refuses the connection, or is older than Warden needs
     *                       ({@link RedisVersion#REQUIRED}); nothing is left open
     */
    public static Server connect(LockConfig config, SharedResources shared) {
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
            return new Server(link.get(), config.redisUriForDisplay());
        } catch (RuntimeException e) {
            LockException failure = Errors.translate(withLostRefusal(e, config, uris.get(0)),
                    "connect to " + config.redisUriForDisplay());
            try {
                redis.shutdown(0, 1, TimeUnit.SECONDS);
            } catch (RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            throw failure;
        }
    }

    /**
     * A connect's failure with the server's refusal that Lettuce lost ({@link HandshakeProbe}) as its cause, where
     * there is one; the failure as it is otherwise.
     */
    private static RuntimeException withLostRefusal(RuntimeException failure, LockConfig config, RedisURI uri) {
        if (config.topology() == LockConfig.Topology.CLUSTER || !HandshakeProbe.cut(failure)) {
            return failure;
        }
        // Through Sentinel, the first handshakes are with the sentinels.
        List<RedisURI> asked = uri.getSentinels().isEmpty() ? List.of(uri) : uri.getSentinels();
        return asked.stream().map(one -> HandshakeProbe.refusal(one, config.commandTimeout()))
                .flatMap(java.util.Optional::stream).findFirst().<RuntimeException>map(refusal -> {
            RedisConnectionException found = new RedisConnectionException(failure.getMessage(),
                    new RedisCommandExecutionException(refusal));
            found.addSuppressed(failure);
            return found;
        }).orElse(failure);
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

    public Link link() {
        return link;
    }

    /** @return whether this is a cluster, where replica acknowledgements are not available */
    public boolean cluster() {
        return link.cluster();
    }

    /** Closes the connections; the shared threads stay. */
    public void close() {
        link.close();
    }
}
