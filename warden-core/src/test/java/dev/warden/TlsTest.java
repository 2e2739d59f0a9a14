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
import java.util.Base64;
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
