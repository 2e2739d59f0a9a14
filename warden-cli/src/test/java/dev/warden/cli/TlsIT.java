package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.redisserver.Certificates;
import dev.warden.redisserver.RedisServer;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line over TLS: a CA file and a client certificate (mutual TLS) against a TLS-only redis-server. */
// Tagged "full": slow (processes against several servers); in `mvn -B verify -Pfull` and CI.
@Tag("full")
class TlsIT {
    @Test
    void runInspectAndLocksWithACaFileAndAClientCertificate(@TempDir Path dir) throws Exception {
        Path ca = Certificates.authority(dir);
        Path[] server = Certificates.signed(dir, "server", "127.0.0.1");
        Path[] client = Certificates.signed(dir, "client", "warden-cli");
        try (RedisServer redis = RedisServer.builder().tls(server[0], server[1])
                .args("--tls-ca-cert-file", ca.toString(), "--tls-auth-clients", "yes").start()) {
            String[] tls = {"--redis", redis.uri(), "--tls-ca", ca.toString(), "--tls-cert", client[0].toString(),
                    "--tls-key", client[1].toString()};
            Cli.Result run = Cli.run(concat(new String[] {"run", "job-t"}, tls,
                    new String[] {"--", "sh", "-c", "echo token=$WARDEN_FENCING_TOKEN"}));
            assertThat(redis.uri()).startsWith("rediss://");
            assertThat(run.exit()).as("%s", run).isZero();
            assertThat(run.out()).matches("token=\\d+\\R");
            Cli.Result inspect = Cli.run(concat(new String[] {"inspect", "job-t"}, tls));
            assertThat(inspect.exit()).as("%s", inspect).isZero();
            assertThat(inspect.out()).contains("state:         free").containsPattern("last fence:    \\d+");
            Cli.Result locks = Cli.run(concat(new String[] {"locks"}, tls));
            assertThat(locks.exit()).as("%s", locks).isZero();
            // The demo's own connection and its worker processes use the same files.
            Cli.Result demo = Cli.run(concat(new String[] {"demo", "--clients", "4", "--prizes", "2", "--processes",
                    "2", "--steady", "0"}, tls));
            assertThat(demo.exit()).as("%s", demo).isZero();
            assertThat(demo.out()).containsPattern("winners\\s+2\\R");

            // Without the CA the server's certificate is not trusted; without the client certificate the server
            // refuses the handshake: both are Redis unavailable, not a hang.
            Cli.Result untrusted = Cli.run("inspect", "job-t", "--redis", redis.uri(), "--timeout", "2s",
                    "--tls-cert", client[0].toString(), "--tls-key", client[1].toString());
            assertThat(untrusted.exit()).as("%s", untrusted).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
            Cli.Result anonymous = Cli.run("inspect", "job-t", "--redis", redis.uri(), "--timeout", "2s",
                    "--tls-ca", ca.toString());
            assertThat(anonymous.exit()).as("%s", anonymous).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
        }
    }

    private static String[] concat(String[]... parts) {
        return Arrays.stream(parts).flatMap(Arrays::stream).toArray(String[]::new);
    }
}
