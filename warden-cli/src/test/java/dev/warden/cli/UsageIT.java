package dev.warden.cli;

import static dev.warden.cli.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.redisserver.RedisServer;
import dev.warden.redisserver.RedisServerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line's own checks of its flags, against a real server that they must leave untouched: each bad value
 * is named with its flag, as given, before anything connects; and a usage error points at the command's help. The
 * checks run the command line in this JVM ({@link Cli#inProcess}); a lease of the cap runs the jar's process.
 */
@Timeout(180)
class UsageIT {
    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();
    private RedisServer server;

    @BeforeEach
    void flush() {
        server = REDIS.server();
        server.call("FLUSHALL");
    }

    /** Runs a command against the server: for {@code run} and {@code lead}, with {@code -- true} as the command. */
    private Cli.Result warden(List<String> args) throws Exception {
        List<String> all = new ArrayList<>(args);
        all.addAll(List.of("--redis", server.uri()));
        if (args.get(0).equals("run") || args.get(0).equals("lead")) {
            all.addAll(List.of("--", "true"));
        }
        return Cli.inProcess(all.toArray(String[]::new));
    }

    @Test
    void everyDurationFlagIsCheckedByTheCommandLineNamingTheFlagAndTheValueAsGiven() throws Exception {
        Map<List<String>, String> cases = new LinkedHashMap<>();
        cases.put(List.of("run", "job", "--lease", "0s"), "--lease must be positive: 0s");
        cases.put(List.of("run", "job", "--lease", "PT0.0005S"), "--lease must be at least 1ms: PT0.0005S");
        cases.put(List.of("run", "job", "--lease", "1000000000h"), "--lease must be at most 24h: 1000000000h");
        cases.put(List.of("run", "job", "--lease", "25h"), "--lease must be at most 24h: 25h");
        cases.put(List.of("run", "job", "--wait", "PT-1S"), "--wait must not be negative: PT-1S");
        cases.put(List.of("run", "job", "--wait", "1441m"), "--wait must be at most 24h: 1441m");
        cases.put(List.of("run", "job", "--grace", "86401s"), "--grace must be at most 24h: 86401s");
        cases.put(List.of("inspect", "job", "--timeout", "0"), "--timeout must be positive: 0");
        cases.put(List.of("lead", "job", "--wait", "0"), "--wait must be positive: 0");
        cases.put(List.of("lead", "job", "--grace", "PT-1S"), "--grace must not be negative: PT-1S");
        cases.put(List.of("run", "job", "--replica-acks", "-1"), "--replica-acks must not be negative: -1");
        cases.put(List.of("run", "job", "--replica-acks", "1", "--replica-ack-timeout", "3s"),
                "--replica-ack-timeout must be shorter than --timeout (3s): 3s");
        cases.put(List.of("run", "job", "--replica-acks", "1", "--replica-ack-timeout", "0ms"),
                "--replica-ack-timeout must be positive: 0ms");
        cases.put(List.of("locks", "--watch", "--interval", "100ms"), "--interval must be at least 200ms: 100ms");
        cases.put(List.of("doctor", "--max-clock-offset", "25h"), "--max-clock-offset must be at most 24h: 25h");
        cases.put(List.of("demo", "--steady", "25h"), "--steady must be at most 24h: 25h");
        for (Map.Entry<List<String>, String> c : cases.entrySet()) {
            Cli.Result result = warden(c.getKey());
            assertThat(result.exit()).as("%s: %s", c.getKey(), result).isEqualTo(ExitCodes.USAGE);
            assertThat(result.err()).as("%s", c.getKey()).isEqualTo("warden: " + c.getValue() + "\nTry 'warden "
                    + c.getKey().get(0) + " --help'.\n");
            assertThat(result.out()).as("%s", c.getKey()).isEmpty();
        }
        assertThat(server.call("DBSIZE")).as("nothing written").isEqualTo(0L);
    }

    @Test
    void anOverflowingNumberIsReportedAsTooLargeNotAsAnException() throws Exception {
        for (String value : List.of("9999999999999999999s", "99999999999999999h", "PT9999999999999999999S")) {
            Cli.Result result = warden(List.of("run", "job", "--lease", value));
            assertThat(result.exit()).as("%s: %s", value, result).isEqualTo(ExitCodes.USAGE);
            assertThat(result.err()).as("%s", value).startsWith("warden: Invalid value for option '--lease': '"
                    + value + "' is too large a number").doesNotContain("Exception")
                    .endsWith("Try 'warden run --help'.\n");
        }
    }

    @Test
    void aLeaseOfTheCapIsGrantedWithThatTtl(@TempDir Path dir) throws Exception {
        Path gate = dir.resolve("gate");
        // Holds the lock until the gate file appears (at most 20 s).
        Cli.Running run = Cli.start(Map.of(), "run", "capped", "--redis", server.uri(), "--lease", "24h", "--",
                "sh", "-c", "i=0; while [ ! -e " + gate + " ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done");
        await(() -> (Long) server.call("PTTL", "warden:{capped}") >= 0, Duration.ofSeconds(30),
                "lock 'capped' held with a TTL");
        long ttl = (Long) server.call("PTTL", "warden:{capped}");
        assertThat(ttl).isBetween(TimeUnit.HOURS.toMillis(24) - 60_000, TimeUnit.HOURS.toMillis(24));
        Files.createFile(gate);
        Cli.Result result = Cli.finish(run);
        assertThat(result.exit()).as("%s", result).isZero();
    }

    @Test
    void aUsageErrorPointsAtTheHelpOfItsOwnCommand() throws Exception {
        Cli.Result bare = Cli.inProcess();
        assertThat(bare.exit()).as("%s", bare).isEqualTo(ExitCodes.USAGE);
        assertThat(bare.err()).as("%s", bare).endsWith("\nTry 'warden --help'.\n");
        Cli.Result unknown = Cli.inProcess("inspect", "job", "--no-such-option");
        assertThat(unknown.exit()).as("%s", unknown).isEqualTo(ExitCodes.USAGE);
        assertThat(unknown.err()).as("%s", unknown).endsWith("\nTry 'warden inspect --help'.\n");
    }
}
