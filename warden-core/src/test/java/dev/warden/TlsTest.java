package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.redisserver.RedisServer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** rediss:// against a real TLS-only redis-server with a self-signed certificate made by the JDK's keytool. */
class TlsTest {

    @Test
    void rediSsUriLocksOverTlsAndAnUntrustedCertificateFailsLoudly(@TempDir Path dir) throws Exception {
        Path[] pem = selfSignedCertificate(dir);
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
    void aCertificateAuthorityFileAndAClientCertificateGiveMutualTlsWithVerificationOn(@TempDir Path dir)
            throws Exception {
        Path ca = authority(dir);
        Path[] server = signed(dir, "server", "127.0.0.1");
        Path[] client = signed(dir, "client", "warden-client");
        try (RedisServer redis = RedisServer.builder().tls(server[0], server[1])
                .args("--tls-ca-cert-file", ca.toString(), "--tls-auth-clients", "yes").start()) {
            // Verification is on (no verifyPeer=NONE): the server's certificate chains to the given authority.
            try (LockClient locks = LockClient.create(LockConfig.builder().redisUri(redis.uri())
                    .tlsTrustedCertificates(ca).tlsClientCertificate(client[0], client[1]).build())) {
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
                    .commandTimeout(Duration.ofSeconds(2)).tlsClientCertificate(client[0], client[1]).build()))
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

    /** A certificate authority in ca.p12, and its certificate as PEM. */
    private static Path authority(Path dir) throws Exception {
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=warden-test-ca", "-ext", "bc:c", "-storetype", "PKCS12",
                "-keystore", dir.resolve("ca.p12").toString(), "-storepass", "changeit", "-keypass", "changeit");
        Path pem = dir.resolve("ca.crt");
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", dir.resolve("ca.p12").toString(),
                "-storepass", "changeit", "-file", pem.toString());
        return pem;
    }

    /** A key and a certificate for {@code cn} signed by the authority, as PEM files: {certificate, key}. */
    private static Path[] signed(Path dir, String alias, String cn) throws Exception {
        Path keystore = dir.resolve(alias + ".p12");
        keytool("-genkeypair", "-alias", alias, "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=" + cn, "-storetype", "PKCS12", "-keystore", keystore.toString(),
                "-storepass", "changeit", "-keypass", "changeit");
        Path request = dir.resolve(alias + ".csr");
        keytool("-certreq", "-alias", alias, "-keystore", keystore.toString(), "-storepass", "changeit",
                "-file", request.toString());
        Path certificate = dir.resolve(alias + ".crt");
        keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", dir.resolve("ca.p12").toString(),
                "-storepass", "changeit", "-infile", request.toString(), "-outfile", certificate.toString(),
                "-validity", "2", "-ext", "SAN=ip:127.0.0.1");
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, "changeit".toCharArray());
        }
        Path key = dir.resolve(alias + ".key");
        Files.writeString(key, pem("PRIVATE KEY", store.getKey(alias, "changeit".toCharArray()).getEncoded()));
        return new Path[] {certificate, key};
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).as(output).isZero();
    }

    private static Path[] selfSignedCertificate(Path dir) throws Exception {
        Path keystore = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "redis", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).as(output).isZero();
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, "changeit".toCharArray());
        }
        Key key = store.getKey("redis", "changeit".toCharArray());
        Path cert = dir.resolve("server.crt");
        Path keyFile = dir.resolve("server.key");
        Files.writeString(cert, pem("CERTIFICATE", store.getCertificate("redis").getEncoded()));
        Files.writeString(keyFile, pem("PRIVATE KEY", key.getEncoded()));
        return new Path[] {cert, keyFile};
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
