package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.redisserver.RedisServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@code warden demo} end to end, and the README's launcher. */
class DemoCommandIT {

    @Test
    void demoWithItsDefaultsOnAnEmbeddedRedisHoldsEveryInvariant() throws Exception {
        Cli.Result result = Cli.run("demo");
        assertThat(result.exit()).as("%s", result).isZero();
        assertThat(result.out()).contains("100 clients in 4 processes compete for 10 prizes")
                .containsPattern("winners\\s+10\\R").containsPattern("overlapping holders detected\\s+0\\R")
                .containsPattern("fencing tokens strictly increasing\\s+yes\\R")
                .containsPattern("prizes left\\s+0\\R").contains("OK: every invariant holds.")
                .containsPattern("handoffs per second \\(steady state, 3s\\)\\s+[1-9]\\d*\\R")
                .containsPattern("handoff p50 / p99 \\(steady state\\)\\s+\\d+\\.\\d{3} / \\d+\\.\\d{3} ms\\R")
                .containsPattern("overlapping holders \\(steady state\\)\\s+0\\R");
    }

    // Tagged "full": two more demos (the default one stays in every run); in `mvn -B verify -Pfull` and CI.
    @Tag("full")
    @Test
    void demoAgainstAGivenServerUsesItAndCleansUp() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            Cli.Result result = Cli.run("demo", "--redis", server.uri(), "--clients", "30", "--prizes", "40",
                    "--processes", "2");
            assertThat(result.exit()).as("%s", result).isZero();
            assertThat(result.out()).contains("on " + server.uri()).containsPattern("winners\\s+30\\R")
                    .containsPattern("prizes left\\s+10\\R").containsPattern("found the pool empty\\s+0\\R");
            // Only the lock's fencing counter stays behind.
            assertThat((List<?>) server.call("KEYS", "*")).hasSize(1);
            Cli.Result fromEnv = Cli.run(Map.of("WARDEN_REDIS", server.uri()), "demo", "--clients", "5",
                    "--prizes", "2", "--processes", "1", "--steady", "0");
            assertThat(fromEnv.exit()).as("%s", fromEnv).isZero();
            assertThat(fromEnv.out()).contains("on " + server.uri()).doesNotContain("handoffs per second");
        }
    }

    @Test
    void launcherAtTheRepositoryRootRunsTheJar() throws Exception {
        Path launcher = Cli.JAR.toAbsolutePath().getParent().getParent().getParent().resolve("warden");
        Process process = new ProcessBuilder(launcher.toString(), "--version").redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).as(output).isZero();
        assertThat(output).contains("warden " + Cli.pomVersion());
    }
}
