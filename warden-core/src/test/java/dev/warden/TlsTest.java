package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.redisserver.Certificates;
import dev.warden.redisserver.RedisCluster;
import dev.warden.redisserver.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rediss:// against real TLS-only redis-servers, with certificates made by the JDK's keytool: a self-signed one, and
 * one certificate authority with a server and a client certificate it signed, made once for the class (eight runs of
 * keytool instead of five or eight in each test) and only read by the tests.
 */
class TlsTest {
    @TempDir
    static Path certificates;
    /** The authority's certificate. */
    static Path ca;
    /** {certificate, key} for 127.0.0.1, signed by the authority. */
    static Path[] serverPair;
    /** {certificate, key} of a client, CN warden-client, signed by the authority. */
    static Path[] clientPair;

    @BeforeAll
    static void makeCertificates() {
        ca = Certificates.authority(certificates);
        serverPair = Certificates.signed(certificates, "server", "127.0.0.1");
        clientPair = Certificates.signed(certificates, "client", "warden-client");
    }

    @Test
    void rediSsUriLocksOverTlsAndAnUntrustedCertificateFailsLoudly(@TempDir Path dir) throws Exception {
        Path[] pem = Certificates.selfSigned(dir);
        try (RedisServer server = RedisServer.builder().tls(pem[0], pem[1]).start()) {
            assertThat(server.uri()).startsWith("rediss://127.0.0.1:");
            // The server's plain port is off: this works only over TLS. Peer verification is off for the
            // self-signed certificate, through Lettuce's verifyPeer URI parameter.
            try (LockClient client = LockClient.create(LockConfig.builder()
                    .redisUri(server.uri() + "?verifyPeer=NONE").build())) {
                Lease lease = client.lock("tls").tryAcquire().orElseThrow();
                assertThat(client.lock("tls").inspect().held()).isTrue();
                assertThat(lease.release()).isTrue();
            }
            // With verification, as by default, the untrusted certificate is a connection failure, not a lock.
            assertThatThrownBy(() -> LockClient.create(LockConfig.builder().redisUri(server.uri())
                    .commandTimeout(Duration.ofSeconds(2)).build()))
                    .isInstanceOf(LockConnectionException.class);
        }
    }

    @Test
    void aCertificateAuthorityFileAndAClientCertificateGiveMutualTlsWithVerificationOn() throws Exception {
        try (RedisServer redis = RedisServer.builder().tls(serverPair[0], serverPair[1])
                .args("--tls-ca-cert-file", ca.toString(), "--tls-auth-clients", "yes").start()) {
            // Verification is on (no verifyPeer=NONE): the server's certificate chains to the given authority.
            try (LockClient locks = LockClient.create(LockConfig.builder().redisUri(redis.uri())
                    .tlsTrustedCertificates(ca).tlsClientCertificate(clientPair[0], clientPair[1]).build())) {
                Lease lease = locks.lock("mtls").tryAcquire().orElseThrow();
                assertThat(lease.fencingToken()).isPositive();
                assertThat(locks.semaphore("mtls", 2).tryAcquire(1)).isPresent();
                assertThat(lease.release()).isTrue();
            }
            // Trusted, but without a client certificate: the server refuses the handshake.
            assertThatThrownBy(() -> LockClient.create(LockConfig.builder().redisUri(redis.uri())
                    .commandTimeout(Duration.ofSeconds(2)).tlsTrustedCertificates(ca).build()))
                    .isInstanceOf(LockException.class);
            // A client certificate, but the JVM's trust store: the server's certificate is not trusted.
            assertThatThrownBy(() -> LockClient.create(LockConfig.builder().redisUri(redis.uri())
                    .commandTimeout(Duration.ofSeconds(2)).tlsClientCertificate(clientPair[0], clientPair[1]).build()))
                    .isInstanceOf(LockConnectionException.class);
        }
    }

    @Test
    void tlsFilesAreCheckedWhenSet(@TempDir Path dir) {
        Path missing = dir.resolve("missing.pem");
        assertThatThrownBy(() -> LockConfig.builder().tlsTrustedCertificates(missing))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pemFile must be a readable file: " + missing);
        assertThatThrownBy(() -> LockConfig.builder().tlsClientCertificate(dir, missing))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("certificateChain must be a readable file: " + dir);
    }

    @Test
    void anAclUserLocksOverTlsWithTheRuleOfDocsAcl() throws Exception {
        try (RedisServer redis = RedisServer.builder().tls(serverPair[0], serverPair[1], ca).start()) {
            List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", "warden", "reset"));
            command.addAll(AclTest.rule());
            redis.call(command.toArray(String[]::new));
            redis.call("ACL", "LOG", "RESET");
            String password = AclTest.rule().stream().filter(word -> word.startsWith(">")).findFirst().orElseThrow()
                    .substring(1);
            try (LockClient client = LockClient.create(LockConfig.builder()
                    .redisUri("rediss://warden:" + password + "@127.0.0.1:" + redis.port())
                    .tlsTrustedCertificates(ca).build())) {
                assertThat(client.lock("acl").inspect().held()).isFalse();
                holdWaitAndHandOver(client, client, "acl", List.of(redis));
            }
            // As in AclTest: but for Lettuce's CLIENT SETINFO, whose refusal Redis 6.2 logs as "client".
            assertThat(((List<?>) redis.call("ACL", "LOG")).stream()
                    .filter(entry -> !"client".equals(((List<?>) entry).get(((List<?>) entry).indexOf("object") + 1))))
                    .as("refusals of the user").isEmpty();
            // The default user is not the one that connected: a wrong password is refused over TLS as well.
            assertThatThrownBy(() -> LockClient.create(LockConfig.builder()
                    .redisUri("rediss://warden:wrong@127.0.0.1:" + redis.port()).tlsTrustedCertificates(ca)
                    .commandTimeout(Duration.ofSeconds(2)).build()))
                    .isInstanceOf(LockConnectionException.class).hasMessageContaining("WRONGPASS");
        }
    }

    @Test
    void aTlsSentinelAndItsTlsMasterAreVerifiedWithTheTrustedAuthority() throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            // Redis 7.0 waits 5 s by default before a replica's first (diskless) sync.
            RedisServer master = keep(resources, RedisServer.builder().tls(serverPair[0], serverPair[1], ca)
                    .args("--repl-diskless-sync-delay", "0").start());
            RedisServer replica = keep(resources, RedisServer.builder().tls(serverPair[0], serverPair[1], ca)
                    .args("--replicaof", master.host(), Integer.toString(master.port())).start());
            replica.awaitReplicaSync(Duration.ofSeconds(20));
            RedisServer sentinel = keep(resources, RedisServer.builder().tls(serverPair[0], serverPair[1], ca)
                    .sentinel("tlsmaster", master.port(), 1, Duration.ofSeconds(60)).start());
            sentinel.awaitSentinelReady(1, 0, Duration.ofSeconds(20));
            assertThat(sentinel.uri()).startsWith("rediss://");
            String uri = "rediss-sentinel://" + sentinel.host() + ":" + sentinel.port() + "#tlsmaster";
            LockClient first = keep(resources, LockClient.create(LockConfig.builder().redisUri(uri)
                    .tlsTrustedCertificates(ca).replicaAcks(1, Duration.ofMillis(500)).build()));
            LockClient second = keep(resources, LockClient.create(LockConfig.builder().redisUri(uri)
                    .tlsTrustedCertificates(ca).build()));
            holdWaitAndHandOver(first, second, "sentinel", List.of(master));
            // The lock lives on the master Sentinel named, reached over TLS (its plain port is off).
            assertThat(master.call("EXISTS", "warden:{sentinel}")).isEqualTo(1L);
            // Without the authority, the sentinel's certificate is not trusted: a connection failure.
            assertThatThrownBy(() -> LockClient.create(LockConfig.builder().redisUri(uri)
                    .commandTimeout(Duration.ofSeconds(2)).build())).isInstanceOf(LockConnectionException.class);
        } finally {
            closeAll(resources);
        }
    }

    @Test
    void aClusterOverTlsLocksWaitsAndHandsOver() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(3, node -> node.tls(serverPair[0], serverPair[1], ca))) {
            assertThat(cluster.seedUri()).startsWith("rediss://");
            try (LockClient first = LockClient.create(LockConfig.builder().cluster(cluster.seedUri())
                    .tlsTrustedCertificates(ca).build());
                 LockClient second = LockClient.create(LockConfig.builder().cluster(cluster.seedUri())
                    .tlsTrustedCertificates(ca).build())) {
                for (String name : List.of("a", "b", "c", "d")) {
                    holdWaitAndHandOver(first, second, name, cluster.nodes());
                }
            }
        }
    }

    @Test
    void aQuorumOfTlsServersLocksWaitsAndHandsOver() throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            List<RedisServer> servers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                servers.add(keep(resources, RedisServer.builder().tls(serverPair[0], serverPair[1], ca).start()));
            }
            String[] uris = servers.stream().map(RedisServer::uri).toArray(String[]::new);
            LockClient first = keep(resources, LockClient.create(LockConfig.builder().quorum(uris)
                    .tlsTrustedCertificates(ca).build()));
            LockClient second = keep(resources, LockClient.create(LockConfig.builder().quorum(uris)
                    .tlsTrustedCertificates(ca).build()));
            holdWaitAndHandOver(first, second, "quorum", servers);
        } finally {
            closeAll(resources);
        }
    }

    /**
     * A holder on {@code first}; a waiter on {@code second}, blocked in tryAcquire(wait), is subscribed to the
     * lock's channel on one of {@code servers} (which serve TLS only), and gets the lock when the holder releases.
     */
    private static void holdWaitAndHandOver(LockClient first, LockClient second, String name,
                                            List<RedisServer> servers) throws Exception {
        Lease held = first.lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
        long heldFence = held.fencingToken();
        assertThat(second.lock(name).tryAcquire()).isEmpty();
        java.util.concurrent.CompletableFuture<Optional<Lease>> waiter = java.util.concurrent.CompletableFuture
                .supplyAsync(() -> {
                    try {
                        return second.lock(name).tryAcquire(Duration.ofSeconds(20));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                });
        Await.await(() -> second.lock(name).inspect().waiters() > 0, Duration.ofSeconds(10),
                "a waiter of lock " + name);
        assertThat(waiter).isNotDone();
        // The waiter listens for the release over its client's TLS pub/sub connection.
        Await.await(() -> !channels(servers, name).isEmpty(), Duration.ofSeconds(10),
                "channels of lock " + name);
        long releasedAt = System.nanoTime();
        assertThat(held.release()).isTrue();
        Lease next = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt)).as("hand-over of " + name)
                .isLessThan(5_000);
        assertThat(next.fencingToken()).isGreaterThan(heldFence);
        assertThat(next.release()).isTrue();
        assertThat(first.lock(name).isLocked()).isFalse();
    }

    /** The channels of lock {@code name} that some client is subscribed to, sharded (Redis 7 cluster) or not. */
    private static List<Object> channels(List<RedisServer> servers, String name) {
        List<Object> channels = new ArrayList<>();
        for (RedisServer server : servers) {
            channels.addAll((List<?>) server.call("PUBSUB", "CHANNELS", "*{" + name + "}*"));
            if (server.majorVersion() >= 7) {
                channels.addAll((List<?>) server.call("PUBSUB", "SHARDCHANNELS", "*{" + name + "}*"));
            }
        }
        return channels;
    }

    private static <T extends AutoCloseable> T keep(List<AutoCloseable> resources, T resource) {
        resources.add(resource);
        return resource;
    }

    private static void closeAll(List<AutoCloseable> resources) throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }
}
