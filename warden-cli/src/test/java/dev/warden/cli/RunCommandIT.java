package dev.warden.cli;

import static dev.warden.cli.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.redisserver.RedisServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code warden run}, inspect and release against a real server: {@code run} as real processes; the output of inspect
 * and release, and the checks of bad input, from the command line run in this JVM ({@link Cli#inProcess}), but for
 * one of each that runs the jar's process (the URI from WARDEN_REDIS, a server that cannot be reached).
 */
class RunCommandIT {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static RedisServer server;
    private LockClient client;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @BeforeEach
    void connect() {
        client = LockClient.create(LockConfig.builder().redisUri(server.uri()).build());
    }

    @AfterEach
    void disconnect() {
        client.close();
    }

    private static String name() {
        return "cli-" + NAMES.incrementAndGet();
    }

    @Test
    void runPassesTheExitCodeTheStreamsAndTheFencingToken() throws Exception {
        String name = name();
        Cli.Result result = Cli.run("run", name, "--redis", server.uri(), "--",
                "sh", "-c", "echo token=$WARDEN_FENCING_TOKEN lock=$WARDEN_LOCK; echo oops >&2; exit 7");
        assertThat(result.exit()).as("%s", result).isEqualTo(7);
        assertThat(result.out()).as("%s", result).matches("token=\\d+ lock=" + name + "\\R");
        assertThat(result.err()).isEqualTo("oops\n");
        long token = Long.parseLong(result.out().replaceAll("token=(\\d+).*\\R", "$1"));
        assertThat(client.lock(name).inspect().lastFencingToken()).isEqualTo(token);
        assertThat(client.lock(name).isLocked()).isFalse();
    }

    @Test
    void concurrentRunsOfOneNameNeverOverlap(@TempDir Path dir) throws Exception {
        String name = name();
        Path marks = dir.resolve("marks");
        String script = "echo start $(date +%s%N) >> " + marks + "; sleep 0.2; echo end $(date +%s%N) >> " + marks;
        List<Cli.Running> runs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            runs.add(Cli.start(Map.of(), "run", name, "--redis", server.uri(), "--wait", "60s", "--",
                    "sh", "-c", script));
        }
        for (Cli.Running run : runs) {
            Cli.Result result = Cli.finish(run);
            assertThat(result.exit()).as("%s", result).isZero();
        }
        List<String> lines = Files.readAllLines(marks, StandardCharsets.UTF_8);
        assertThat(lines).hasSize(8);
        long previousEnd = 0;
        for (int i = 0; i < lines.size(); i += 2) {
            String[] start = lines.get(i).split(" ");
            String[] end = lines.get(i + 1).split(" ");
            assertThat(start[0]).as("line %d of %s", i, lines).isEqualTo("start");
            assertThat(end[0]).as("line %d of %s", i + 1, lines).isEqualTo("end");
            assertThat(Long.parseLong(start[1])).isGreaterThanOrEqualTo(previousEnd);
            previousEnd = Long.parseLong(end[1]);
        }
    }

    @Test
    void fairRunsGetTheLockInTheOrderTheyStartedWaiting(@TempDir Path dir) throws Exception {
        String name = name();
        Path order = dir.resolve("order");
        try (LockClient fair = LockClient.create(LockConfig.builder().redisUri(server.uri()).fair(true).build())) {
            DistributedLock lock = fair.lock(name);
            Lease holder = lock.tryAcquire().orElseThrow();
            List<Cli.Running> runs = new ArrayList<>();
            for (String id : List.of("first", "second", "third")) {
                runs.add(Cli.start(Map.of(), "run", name, "--redis", server.uri(), "--wait", "60s", "--fair", "--",
                        "sh", "-c", "echo " + id + " >> " + order));
                int queued = runs.size();
                await(() -> lock.inspect().waiters() >= queued, Duration.ofSeconds(30), queued + " runs waiting");
                assertThat(lock.inspect().waiters()).isEqualTo(queued);
            }
            holder.release();
            for (Cli.Running run : runs) {
                assertThat(Cli.finish(run).exit()).isZero();
            }
        }
        assertThat(Files.readAllLines(order, StandardCharsets.UTF_8)).containsExactly("first", "second", "third");
    }

    @Test
    void lockNotFreeWithinTheWaitGivesItsExitCodeAndOneLine() throws Exception {
        String name = name();
        Lease held = client.lock(name).tryAcquire().orElseThrow();
        long t0 = System.nanoTime();
        Cli.Result result = Cli.run("run", name, "--redis", server.uri(), "--wait", "300ms", "--", "true");
        assertThat(result.exit()).as("%s", result).isEqualTo(75);
        assertThat(result.err()).as("%s", result).hasLineCount(1).contains(name).contains("300ms");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThan(Duration.ofMillis(300));
        Cli.Result immediate = Cli.run("run", name, "--redis", server.uri(), "--", "true");
        assertThat(immediate.exit()).as("%s", immediate).isEqualTo(75);
        assertThat(held.release()).isTrue();
    }

    @Test
    void lostLeaseTerminatesTheCommandAndGivesItsExitCode() throws Exception {
        String name = name();
        Cli.Running run = Cli.start(Map.of(), "run", name, "--redis", server.uri(), "--lease", "1s", "--grace", "2s",
                "--", "sleep", "60");
        awaitHeld(name);
        awaitChild(run.process, "sleep");
        client.lock(name).forceRelease();
        Lease usurper = client.lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(60)).orElseThrow();
        long t0 = System.nanoTime();
        Cli.Result result = Cli.finish(run);
        assertThat(result.exit()).as("%s", result).isEqualTo(76);
        assertThat(result.err()).as("%s", result).contains("lost").contains(name);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        assertThat(usurper.isHeld()).isTrue();
        assertThat(client.lock(name).inspect().lastFencingToken()).isEqualTo(usurper.fencingToken());
        usurper.release();
    }

    @Test
    void commandThatIgnoresSigtermIsKilledAfterTheGracePeriod() throws Exception {
        String name = name();
        Cli.Running run = Cli.start(Map.of(), "run", name, "--redis", server.uri(), "--lease", "1s", "--grace", "1s",
                "--", "sh", "-c", "trap '' TERM; while :; do sleep 0.1; done");
        awaitHeld(name);
        awaitChild(run.process, "sh");
        client.lock(name).forceRelease();
        client.lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(60)).orElseThrow();
        Cli.Result result = Cli.finish(run);
        assertThat(result.exit()).as("%s", result).isEqualTo(76);
        assertThat(run.process.descendants().count()).isZero();
    }

    @Test
    void sigtermToWardenReachesTheCommandAndTheLockIsReleased() throws Exception {
        String name = name();
        Cli.Running run = Cli.start(Map.of(), "run", name, "--redis", server.uri(), "--",
                "sh", "-c", "trap 'echo got-term; exit 3' TERM; while :; do sleep 0.1; done");
        awaitHeld(name);
        awaitChild(run.process, "sh");
        run.process.destroy();
        Cli.Result result = Cli.finish(run);
        assertThat(result.exit()).as("%s", result).isEqualTo(3);
        assertThat(result.out()).contains("got-term");
        assertThat(client.lock(name).isLocked()).isFalse();
    }

    @Test
    void commandNotFoundGives127AndReleasesTheLock() throws Exception {
        String name = name();
        Cli.Result result = Cli.run("run", name, "--redis", server.uri(), "--", "no-such-command-xyz");
        assertThat(result.exit()).as("%s", result).isEqualTo(127);
        assertThat(result.err()).hasLineCount(1).contains("no-such-command-xyz");
        assertThat(client.lock(name).isLocked()).isFalse();
    }

    @Test
    void badInputIsOneLineWithoutAStackTrace() throws Exception {
        Cli.Result missing = Cli.inProcess("run", name(), "--redis", server.uri());
        assertThat(missing.exit()).as("%s", missing).isEqualTo(64);
        assertThat(missing.err()).contains("CMD").doesNotContain("\tat ");
        Cli.Result duration = Cli.inProcess("run", name(), "--redis", server.uri(), "--wait", "10x", "--", "true");
        assertThat(duration.exit()).as("%s", duration).isEqualTo(64);
        assertThat(duration.err()).contains("10x").doesNotContain("\tat ");
        Cli.Result uri = Cli.inProcess("inspect", "x", "--redis", "http://u:secret@host");
        assertThat(uri.exit()).as("%s", uri).isEqualTo(64);
        assertThat(uri.err()).hasLineCount(1).contains("redisUri").doesNotContain("secret");
        // A process: a connection's first failure in a new JVM prints that one line and nothing else.
        Cli.Result down = Cli.run("inspect", "x", "--redis", "redis://u:secret@127.0.0.1:1", "--timeout", "1s");
        assertThat(down.exit()).as("%s", down).isEqualTo(69);
        assertThat(down.err()).hasLineCount(1).contains("127.0.0.1:1").doesNotContain("secret");
        Cli.Result verbose = Cli.run("inspect", "x", "--redis", "redis://127.0.0.1:1", "--timeout", "1s", "--verbose");
        assertThat(verbose.exit()).isEqualTo(69);
        assertThat(verbose.err()).contains("\tat ");
    }

    @Test
    void inspectAndForcedReleaseReportWhatTheyFound() throws Exception {
        String name = name();
        Lease held = client.lock(name).tryAcquire().orElseThrow();
        Cli.Result inspect = Cli.run(Map.of("WARDEN_REDIS", server.uri()), "inspect", name);
        assertThat(inspect.exit()).as("%s", inspect).isZero();
        assertThat(inspect.out()).contains("state:         held").contains("last fence:    -")
                .contains("waiters:       0");
        long fence = held.fencingToken();
        assertThat(Cli.inProcess("inspect", name, "--redis", server.uri()).out()).contains("last fence:    " + fence);
        Cli.Result refused = Cli.inProcess("release", name, "--redis", server.uri());
        assertThat(refused.exit()).isEqualTo(64);
        assertThat(refused.err()).contains("--force");
        assertThat(held.isHeld()).isTrue();
        Cli.Result forced = Cli.inProcess("release", name, "--redis", server.uri(), "--force");
        assertThat(forced.exit()).as("%s", forced).isZero();
        assertThat(forced.out()).contains("fencing token " + fence);
        assertThat(Cli.inProcess("inspect", name, "--redis", server.uri()).out()).contains("state:         free");
        assertThat(Cli.inProcess("release", name, "--redis", server.uri(), "--force").out())
                .contains("was not held");
        assertThat(held.release()).isFalse();
        String unfenced = name();
        Lease other = client.lock(unfenced).tryAcquire().orElseThrow();
        // A holder that never asked for a token is named by the one it would have had, issued by the release.
        assertThat(Cli.inProcess("release", unfenced, "--redis", server.uri(), "--force").out())
                .containsPattern("removed the holder with fencing token [1-9][0-9]*");
        assertThat(other.release()).isFalse();
    }

    @Test
    void sigtermWhileWaitingForTheLockStopsWaitingAndExits143() throws Exception {
        String name = name();
        Lease held = client.lock(name).tryAcquire().orElseThrow();
        Cli.Running run = Cli.start(Map.of(), "run", name, "--redis", server.uri(), "--wait", "60s", "--", "true");
        await(() -> client.lock(name).inspect().waiters() > 0, Duration.ofSeconds(30), "the run waiting");
        run.process.destroy();
        Cli.Result result = Cli.finish(run);
        assertThat(result.exit()).as("%s", result).isEqualTo(143);
        assertThat(result.err()).as("%s", result).hasLineCount(1).contains("SIGTERM");
        assertThat(held.isHeld()).isTrue();
        held.release();
    }

    /** Waits until the command (its executable's name ends with {@code command}) runs under the lock. */
    private static void awaitChild(Process warden, String command) throws InterruptedException {
        await(() -> warden.descendants().anyMatch(p -> p.info().command().orElse("").endsWith(command)),
                Duration.ofSeconds(30), "'" + command + "' started by warden");
    }

    private void awaitHeld(String name) throws InterruptedException {
        await(() -> client.lock(name).isLocked(), Duration.ofSeconds(30), "lock " + name + " held");
    }
}
