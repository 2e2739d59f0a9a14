package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.redisserver.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A password from a file or the environment, never on the command line, for the default user and an ACL user. What
 * needs the jar's process (run, the environment, the demo's workers) runs it; the rest runs the command line in this
 * JVM ({@link Cli#inProcess}).
 */
class CredentialsIT {
    @Test
    void thePasswordComesFromAFileOrTheEnvironment(@TempDir Path dir) throws Exception {
        try (RedisServer server = RedisServer.start()) {
            server.call("ACL", "SETUSER", "locker", "on", ">s3cret-locker", "~*", "&*", "+@all");
            server.call("CONFIG", "SET", "requirepass", "s3cret");
            Path file = dir.resolve("password");
            Files.writeString(file, "s3cret\n");
            Cli.Result refused = Cli.inProcess("inspect", "job", "--redis", server.uri());
            assertThat(refused.exit()).as("%s", refused).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
            assertThat(refused.err()).containsIgnoringCase("auth");

            Cli.Result fromFile = Cli.run("run", "job", "--redis", server.uri(), "--password-file", file.toString(),
                    "--", "true");
            assertThat(fromFile.exit()).as("%s", fromFile).isZero();
            Cli.Result fromEnv = Cli.run(Map.of("WARDEN_PASSWORD", "s3cret"), "inspect", "job", "--redis",
                    server.uri());
            assertThat(fromEnv.exit()).as("%s", fromEnv).isZero();
            assertThat(fromEnv.out()).contains("state:         free");

            // The demo's worker processes connect with the same password.
            Cli.Result demo = Cli.run("demo", "--redis", server.uri(), "--password-file", file.toString(),
                    "--clients", "4", "--prizes", "2", "--processes", "2", "--steady", "0");
            assertThat(demo.exit()).as("%s", demo).isZero();
            assertThat(demo.out()).containsPattern("winners\\s+2\\R");

            // And the doctor.
            Cli.Result doctor = Cli.inProcess("doctor", "--redis", server.uri(), "--password-file", file.toString());
            assertThat(doctor.exit()).as("%s", doctor).isNotEqualTo(ExitCodes.REDIS_UNAVAILABLE);
            assertThat(doctor.out()).contains("user default").doesNotContain("NOAUTH");

            // A URI that names a user alone takes the password as that ACL user's.
            Files.writeString(file, "s3cret-locker\n");
            Cli.Result asUser = Cli.inProcess("inspect", "job", "--redis",
                    server.uri().replace("redis://", "redis://locker@"), "--password-file", file.toString());
            assertThat(asUser.exit()).as("%s", asUser).isZero();

            Cli.Result missing = Cli.inProcess("inspect", "job", "--redis", server.uri(), "--password-file",
                    dir.resolve("none").toString());
            assertThat(missing.exit()).as("%s", missing).isEqualTo(ExitCodes.USAGE);
            assertThat(missing.err()).contains("--password-file cannot be read");
            Cli.Result halfTls = Cli.inProcess("inspect", "job", "--redis", server.uri(), "--tls-cert",
                    file.toString());
            assertThat(halfTls.exit()).as("%s", halfTls).isEqualTo(ExitCodes.USAGE);
            assertThat(halfTls.err()).contains("--tls-cert and --tls-key go together");
        }
    }
}
