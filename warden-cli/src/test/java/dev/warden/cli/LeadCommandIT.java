package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockInfo;
import dev.warden.Lease;
import dev.warden.redisserver.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code warden lead}: candidates as real processes against a real server, their commands writing the epoch they
 * were given to a file. One command runs at a time, each term's epoch is higher, a leader that dies is followed
 * within about a lease, a lost lease stops the command (SIGKILL after {@code --grace} for one that ignores
 * SIGTERM), {@code --rejoin} leads again, and the exit codes are the documented ones.
 */
@Timeout(180)
class LeadCommandIT {
    /**
     * The candidates' lease: short, so that a dead leader is followed soon, yet not so short that a renewal late by a
     * loaded machine's pause loses it.
     */
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static RedisServer server;
    private LockClient client;
    private final List<Cli.Running> started = new ArrayList<>();

    @TempDir
    Path dir;

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

    /** Whatever a failed test left running: the candidates and their commands. */
    @AfterEach
    void stopEverything() {
        for (Cli.Running running : started) {
            List<ProcessHandle> commands = running.process.descendants().toList();
            running.process.destroyForcibly();
            commands.forEach(ProcessHandle::destroyForcibly);
        }
        client.close();
    }

    private static String name() {
        return "lead-" + NAMES.incrementAndGet();
    }

    /** One start of a command: who ran it, with which epoch, for which election. */
    private record Start(String who, long epoch, String lock) {
        static Start parse(String line) {
            String[] parts = line.split(" ");
            return new Start(parts[0], Long.parseLong(parts[1]), parts[2]);
        }
    }

    /** A candidate whose command writes "WHO EPOCH LOCK" to {@code log} and sleeps until it is stopped. */
    private Cli.Running candidate(String name, String who, Path log, String... options) throws IOException {
        List<String> args = new ArrayList<>(List.of("lead", name, "--redis", server.uri(), "--lease",
                LEASE.toMillis() + "ms"));
        args.addAll(List.of(options));
        args.addAll(List.of("--", "sh", "-c", "echo \"" + who + " $WARDEN_EPOCH $WARDEN_LOCK\" >> " + log
                + "; exec sleep 120"));
        return start(args.toArray(String[]::new));
    }

    private Cli.Running start(String... args) throws IOException {
        Cli.Running running = Cli.start(Map.of(), args);
        started.add(running);
        return running;
    }

    @Test
    @Tag("full") // 25-30 s of process starts; the grace and rerun tests cover a term's command by default
    void oneCommandRunsAtATimeTheNextLeaderFollowsADeadOneAndRejoinLeadsAgain() throws Exception {
        String name = name();
        Path log = dir.resolve("starts");
        Cli.Running a = candidate(name, "A", log);
        Start first = awaitStarts(log, 1).get(0);
        assertThat(first.who()).isEqualTo("A");
        assertThat(first.lock()).isEqualTo(name);
        Cli.Running b = candidate(name, "B", log, "--rejoin");
        awaitCandidates(name, 1);
        assertThat(commands(a)).as("the leader's command").isEqualTo(1);
        assertThat(commands(b)).as("a waiting candidate runs nothing").isZero();

        // inspect reads the lock as the election: the leader (A's process), its epoch, one candidate.
        Cli.Result inspect = Cli.run("inspect", name, "--redis", server.uri());
        assertThat(inspect.out()).as("%s", inspect).containsPattern("election:      leader warden-cli-\\S+ \\(.*pid "
                + a.process.pid() + ", .*\\), epoch " + first.epoch() + ", 1 candidate waiting\n");

        // A's machine dies: its warden and its command are killed, nothing releases; B leads once the lease expires.
        List<ProcessHandle> aCommand = a.process.descendants().toList();
        a.process.destroyForcibly();
        aCommand.forEach(ProcessHandle::destroyForcibly);
        long killed = System.nanoTime();
        Start second = awaitStarts(log, 2).get(1);
        Duration failover = Duration.ofNanos(System.nanoTime() - killed);
        System.out.println("LeadCommandIT: B ran the command " + failover.toMillis() + " ms after A was killed, with a "
                + LEASE.toMillis() + " ms lease");
        assertThat(second.who()).isEqualTo("B");
        assertThat(second.epoch()).isGreaterThan(first.epoch());
        assertThat(failover).as("within about a lease").isLessThan(LEASE.plusSeconds(4));
        assertThat(commands(b)).isEqualTo(1);

        // C queues; a forced release takes B's lease: C leads at once, B's command is stopped at B's next renewal,
        // and B, with --rejoin, waits to lead again.
        Cli.Running c = candidate(name, "C", log);
        awaitCandidates(name, 1);
        Cli.Result release = Cli.run("release", name, "--redis", server.uri(), "--force");
        assertThat(release.exit()).as("%s", release).isZero();
        Start third = awaitStarts(log, 3).get(2);
        assertThat(third.who()).isEqualTo("C");
        assertThat(third.epoch()).isGreaterThan(second.epoch());
        assertThat(await(() -> commands(b) == 0)).as("B's command stopped").isTrue();
        awaitCandidates(name, 1);
        assertThat(b.process.isAlive()).as("B waits to lead again").isTrue();
        assertThat(commands(c)).isEqualTo(1);

        // SIGTERM to C goes to its command, which dies of it; C leaves, and B leads again, in a higher term.
        c.process.destroy();
        Cli.Result stopped = Cli.finish(c);
        assertThat(stopped.exit()).as("%s", stopped).isEqualTo(143);
        Start fourth = awaitStarts(log, 4).get(3);
        assertThat(fourth.who()).isEqualTo("B");
        assertThat(fourth.epoch()).isGreaterThan(third.epoch());
        assertThat(commands(b)).isEqualTo(1);

        b.process.destroy();
        Cli.Result rejoined = Cli.finish(b);
        assertThat(rejoined.exit()).as("%s", rejoined).isEqualTo(143);
        assertThat(rejoined.err()).as("%s", rejoined).contains("'" + name + "' (epoch " + second.epoch()
                + ") was lost while the command ran; the command was terminated; waiting to lead again");
        LockInfo after = client.lock(name).inspect();
        assertThat(after.held()).isFalse();
        assertThat(after.waiters()).isZero();
        assertThat(after.lastFencingToken()).isEqualTo(fourth.epoch());
    }

    @Test
    void aLostLeaseStopsTheCommandWithSigtermThenSigkillAfterTheGrace() throws Exception {
        String name = name();
        Path log = dir.resolve("log");
        // Ignores SIGTERM, saying so, and that it still runs after it.
        Cli.Running run = start("lead", name, "--redis", server.uri(), "--lease", "2s", "--grace", "1s", "--",
                "sh", "-c", "trap 'echo TERM >> " + log + "; t=1' TERM; echo up >> " + log + "; "
                        + "while :; do sleep 0.1; if [ -n \"$t\" ]; then echo still >> " + log + "; t=; fi; done");
        assertThat(await(() -> lines(log).contains("up"))).isTrue();
        assertThat(client.lock(name).forceRelease()).isPresent();
        long released = System.nanoTime();
        Cli.Result result = Cli.finish(run);
        Duration took = Duration.ofNanos(System.nanoTime() - released);
        System.out.println("LeadCommandIT: warden lead exited " + took.toMillis() + " ms after the forced release, "
                + "with a 2 s lease and a 1 s grace");
        assertThat(result.exit()).as("%s", result).isEqualTo(ExitCodes.LEASE_LOST);
        assertThat(result.err()).as("%s", result).contains("'" + name + "'").contains("was lost while the command ran")
                .doesNotContain("waiting to lead again");
        assertThat(lines(log)).as("SIGTERM first, ignored").containsSubsequence("up", "TERM", "still");
        assertThat(took).as("SIGKILL only after the grace").isGreaterThanOrEqualTo(Duration.ofSeconds(1))
                .isLessThan(Duration.ofSeconds(15));
        assertThat(run.process.descendants().count()).isZero();
    }

    @Test
    @Tag("full") // 15-27 s; by default the grace test checks 76 and LeadCommandTest the usage errors
    void exitCodesAreTheCommandsOrSayWhyItDidNotRun() throws Exception {
        String name = name();
        Cli.Result ran = Cli.run("lead", name, "--redis", server.uri(), "--",
                "sh", "-c", "echo $WARDEN_EPOCH $WARDEN_FENCING_TOKEN $WARDEN_LOCK; exit 3");
        assertThat(ran.exit()).as("%s", ran).isEqualTo(3);
        String[] said = ran.out().trim().split(" ");
        assertThat(said).as("%s", ran).hasSize(3);
        assertThat(said[1]).isEqualTo(said[0]);
        assertThat(said[2]).isEqualTo(name);
        LockInfo after = client.lock(name).inspect();
        assertThat(after.held()).as("stepped down").isFalse();
        assertThat(after.waiters()).as("left the election").isZero();
        assertThat(after.lastFencingToken()).isEqualTo(Long.parseLong(said[0]));

        // Not runnable now, not runnable in the next term: --rejoin does not try again.
        Cli.Result missing = Cli.run("lead", name, "--redis", server.uri(), "--rejoin", "--", "no-such-command-xyz");
        assertThat(missing.exit()).as("%s", missing).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(missing.err()).hasLineCount(1).contains("no-such-command-xyz");
        assertThat(client.lock(name).isLocked()).isFalse();

        Lease leader = client.lock(name).tryAcquire().orElseThrow();
        Cli.Result notElected = Cli.run("lead", name, "--redis", server.uri(), "--wait", "500ms", "--", "true");
        assertThat(notElected.exit()).as("%s", notElected).isEqualTo(ExitCodes.NOT_ACQUIRED);
        assertThat(notElected.err()).as("%s", notElected).hasLineCount(1).contains(name).contains("500ms");

        Cli.Running waiting = start("lead", name, "--redis", server.uri(), "--", "true");
        awaitCandidates(name, 1);
        waiting.process.destroy();
        Cli.Result stopped = Cli.finish(waiting);
        assertThat(stopped.exit()).as("%s", stopped).isEqualTo(143);
        assertThat(stopped.err()).as("%s", stopped).hasLineCount(1).contains("SIGTERM").contains("waiting to lead");
        assertThat(leader.isHeld()).isTrue();
        assertThat(client.lock(name).inspect().waiters()).isZero();
        leader.release();
    }

    @Test
    void withRejoinACommandThatExitsStepsDownAndRunsAgainInTheNextTerm() throws Exception {
        String name = name();
        Path log = dir.resolve("terms");
        // Exits at once twice; the third time it stays, until warden is stopped.
        Cli.Running run = start("lead", name, "--redis", server.uri(), "--rejoin", "--", "sh", "-c",
                "echo $WARDEN_EPOCH $(date +%s%N) >> " + log + "; [ $(wc -l < " + log + ") -ge 3 ] && exec sleep 120; "
                        + "exit 4");
        assertThat(await(() -> lines(log).size() >= 3)).isTrue();
        List<long[]> terms = lines(log).stream().map(line -> line.split(" "))
                .map(parts -> new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])}).toList();
        for (int i = 1; i < terms.size(); i++) {
            assertThat(terms.get(i)[0]).as("epoch of term %d", i + 1).isGreaterThan(terms.get(i - 1)[0]);
            // At most one start a second (less what starting the shell took the first time).
            assertThat(terms.get(i)[1] - terms.get(i - 1)[1]).as("nanoseconds between starts")
                    .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(500));
        }
        assertThat(await(() -> commands(run) == 1)).isTrue();
        run.process.destroy();
        Cli.Result result = Cli.finish(run);
        assertThat(result.exit()).as("%s", result).isEqualTo(143);
        assertThat(result.err().lines().filter(line -> line.contains("the command exited with 4; stepped down as "
                + "leader of '" + name + "'")).count()).as("%s", result).isEqualTo(2);
        assertThat(client.lock(name).isLocked()).isFalse();
    }

    /** How many commands a candidate runs: its {@code sleep}, which the shell became. */
    private static long commands(Cli.Running candidate) {
        return candidate.process.descendants().filter(p -> p.info().command().orElse("").endsWith("sleep"))
                .count();
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Waits until the log has {@code count} starts; the starts so far. */
    private static List<Start> awaitStarts(Path log, int count) throws InterruptedException {
        assertThat(await(() -> lines(log).size() >= count)).as("%d starts in %s", count, lines(log)).isTrue();
        List<Start> starts = lines(log).stream().map(Start::parse).toList();
        assertThat(starts).as("exactly %d starts", count).hasSize(count);
        return starts;
    }

    private void awaitCandidates(String name, int waiting) throws InterruptedException {
        assertThat(await(() -> client.lock(name).inspect().waiters() == waiting)).as("%d waiting", waiting).isTrue();
    }

    private static boolean await(BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() - end < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(20);
        }
        return condition.getAsBoolean();
    }
}
