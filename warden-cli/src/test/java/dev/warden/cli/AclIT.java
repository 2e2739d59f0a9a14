package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.redisserver.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line as a Redis user created by the rule in docs/acl.md, its password in {@code WARDEN_REDIS} rather
 * than on the command line: run (one run waiting for another's lock), inspect, locks, and the doctor's ACL finding.
 */
// Tagged "full": slow (processes against several servers); in `mvn -B verify -Pfull` and CI.
@Tag("full")
@Timeout(120)
class AclIT {
    private static final Path DOC = Path.of("..", "docs", "acl.md");
    private static final String PASSWORD = "acl-it-secret";
    private static RedisServer server;
    private static Map<String, String> user;

    @BeforeAll
    static void startServerWithTheUser() throws IOException {
        server = RedisServer.start();
        String prefix = "ACL SETUSER warden ";
        String rule = Files.readString(DOC, StandardCharsets.UTF_8).lines().filter(l -> l.startsWith(prefix))
                .findFirst().orElseThrow(() -> new AssertionError(DOC + " has no line starting with " + prefix));
        List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", "warden"));
        Stream.of(rule.substring(prefix.length()).split(" +"))
                .map(word -> word.startsWith(">") ? ">" + PASSWORD : word).forEach(command::add);
        server.call(command.toArray(String[]::new));
        user = Map.of("WARDEN_REDIS", "redis://warden:" + PASSWORD + "@" + server.host() + ":" + server.port());
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    /** Waits, bounded, for what the server shows (read as the default user, who may read anything). */
    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        return Await.eventually(java.time.Duration.ofSeconds(10), condition);
    }

    private static long token(Cli.Result result) {
        Matcher m = Pattern.compile("token=(\\d+)").matcher(result.out());
        assertThat(m.find()).as("%s", result).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void runWaitsForAnotherRunAndInspectAndLocksSeeThemAsTheUser(@TempDir Path dir) throws Exception {
        server.call("ACL", "LOG", "RESET");
        Path gate = dir.resolve("gate");
        // The first run holds the lock until the gate file appears (at most 20 s).
        Cli.Running first = Cli.start(user, "run", "nightly", "--", "sh", "-c", "echo token=$WARDEN_FENCING_TOKEN; "
                + "i=0; while [ ! -e " + gate + " ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done");
        assertThat(eventually(() -> server.call("EXISTS", "warden:{nightly}").equals(1L))).isTrue();
        Cli.Running second = Cli.start(user, "run", "nightly", "--wait", "60s", "--",
                "sh", "-c", "echo token=$WARDEN_FENCING_TOKEN");
        assertThat(eventually(() -> server.call("ZCARD", "warden:{nightly}:q").equals(1L))).isTrue();

        Cli.Result inspect = Cli.run(user, "inspect", "nightly");
        assertThat(inspect.exit()).as("%s", inspect).isZero();
        assertThat(inspect.out()).contains("state:         held").contains("waiters:       1");
        Cli.Result locks = Cli.run(user, "locks");
        assertThat(locks.exit()).as("%s", locks).isZero();
        assertThat(locks.out()).contains("nightly");

        Files.createFile(gate);
        Cli.Result firstResult = Cli.finish(first);
        assertThat(firstResult.exit()).as("%s", firstResult).isZero();
        Cli.Result secondResult = Cli.finish(second);
        assertThat(secondResult.exit()).as("%s", secondResult).isZero();
        assertThat(token(secondResult)).isGreaterThan(token(firstResult));
        assertThat(Cli.run(user, "inspect", "nightly").out()).contains("state:         free");
        // Lettuce's CLIENT SETINFO after connecting is refused on Redis 6.2, and ignored (see docs/acl.md).
        assertThat((List<?>) server.call("ACL", "LOG")).as("refusals")
                .allSatisfy(entry -> assertThat(entry.toString()).contains("object, client"));
    }

    @Test
    void theDoctorFindsEveryCommandWardenSendsAllowedAndChecksTheClockAndLatencyWithTime() throws Exception {
        Cli.Result doctor = Cli.run(user, "doctor", "--durability", "none");
        // The rule has no ACL WHOAMI: the user's name comes from the URI.
        assertThat(doctor.out()).as("%s", doctor).containsPattern("(?m)^OK +ACL +user warden: (\\d+) of \\1 commands "
                + "ran").doesNotContain(PASSWORD);
        // Nor PING: TIME, which the scripts need, reads the server's clock and times the round trip.
        assertThat(doctor.out()).as("%s", doctor).containsPattern("(?m)^(OK|WARN) +CLOCK +server clock")
                .containsPattern("(?m)^(OK|WARN) +LATENCY +TIME round trip p50");
    }
}
