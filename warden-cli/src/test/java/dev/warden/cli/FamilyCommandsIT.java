package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.redisserver.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * {@code warden run --read/--write/--permits} as real processes, and {@code inspect}, {@code release --force},
 * {@code resize} and the checks of {@code run}'s options from the command line run in this JVM
 * ({@link Cli#inProcess}), of the family.
 */
class FamilyCommandsIT {
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
        return "family-" + NAMES.incrementAndGet();
    }

    @Test
    void readersRunTogetherAndAWriterWaitsForThem(@TempDir Path dir) throws Exception {
        String name = name();
        Path marks = dir.resolve("marks");
        Lease writer = client.readWriteLock(name).writeLock().tryAcquire().orElseThrow();
        Cli.Result refused = Cli.run("run", name, "--read", "--redis", server.uri(), "--", "true");
        assertThat(refused.exit()).as("%s", refused).isEqualTo(ExitCodes.NOT_ACQUIRED);
        assertThat(refused.err()).contains("the read lock of '" + name + "' held by others");
        writer.release();
        String script = "echo start >> " + marks + "; sleep 1; echo end >> " + marks;
        List<Cli.Running> readers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            readers.add(Cli.start(Map.of(), "run", name, "--read", "--redis", server.uri(), "--wait", "30s", "--",
                    "sh", "-c", script));
        }
        for (Cli.Running reader : readers) {
            Cli.Result result = Cli.finish(reader);
            assertThat(result.exit()).as("%s", result).isZero();
        }
        // Both readers started before either ended.
        assertThat(Files.readAllLines(marks)).startsWith("start", "start");
        Cli.Result write = Cli.run("run", name, "--write", "--redis", server.uri(), "--", "true");
        assertThat(write.exit()).as("%s", write).isZero();
    }

    @Test
    void permitsOfASemaphoreAreTakenAndGivenBack() throws Exception {
        String name = name();
        Lease two = client.semaphore(name, 3).tryAcquire(2).orElseThrow();
        Cli.Result tooMany = Cli.run("run", name, "--permits", "2", "--of", "3", "--redis", server.uri(), "--",
                "true");
        assertThat(tooMany.exit()).as("%s", tooMany).isEqualTo(ExitCodes.NOT_ACQUIRED);
        assertThat(tooMany.err()).contains("2 of the 3 permits of semaphore '" + name + "'");
        Cli.Result one = Cli.run("run", name, "--of", "3", "--redis", server.uri(), "--",
                "sh", "-c", "echo token=$WARDEN_FENCING_TOKEN");
        assertThat(one.exit()).as("%s", one).isZero();
        assertThat(one.out()).matches("token=\\d+\\R");
        Cli.Result wrongLimit = Cli.run("run", name, "--of", "5", "--redis", server.uri(), "--", "true");
        assertThat(wrongLimit.exit()).as("%s", wrongLimit).isNotZero();
        assertThat(wrongLimit.err()).contains("has 3 permits, not 5")
                .doesNotContain("Redis answered with an error");
        two.release();
        assertThat(client.semaphore(name, 3).available()).isEqualTo(3);
    }

    @Test
    void aSemaphoreIsResizedWhileItsPermitsAreHeld() throws Exception {
        String name = name();
        Lease two = client.semaphore(name, 3).tryAcquire(2).orElseThrow();
        Cli.Result lowered = Cli.inProcess("resize", name, "1", "--redis", server.uri());
        assertThat(lowered.exit()).as("%s", lowered).isZero();
        assertThat(lowered.out()).contains("resized semaphore '" + name + "' from 3 to 1 permits (1 holder, above "
                + "the new number");
        assertThat(two.confirm()).isTrue();
        assertThat(client.semaphore(name, 1).inspect().permits()).isEqualTo(1);
        Cli.Result oldNumber = Cli.run("run", name, "--of", "3", "--redis", server.uri(), "--", "true");
        assertThat(oldNumber.exit()).as("%s", oldNumber).isNotZero();
        assertThat(oldNumber.err()).contains("has 1 permit, not 3")
                .doesNotContain("Redis answered with an error");
        two.release();
        Cli.Result raised = Cli.inProcess("resize", name, "5", "--redis", server.uri());
        assertThat(raised.exit()).as("%s", raised).isZero();
        assertThat(client.semaphore(name, 5).available()).isEqualTo(5);
        Cli.Result zero = Cli.inProcess("resize", name, "0", "--redis", server.uri());
        assertThat(zero.exit()).as("%s", zero).isEqualTo(ExitCodes.USAGE);
        assertThat(zero.err()).contains("PERMITS must be at least 1: 0");
    }

    @Test
    void contradictoryOptionsAreRefusedBeforeAnythingRuns() throws Exception {
        Cli.Result both = Cli.inProcess("run", name(), "--read", "--write", "--redis", server.uri(), "--", "true");
        assertThat(both.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(both.err()).contains("exclude each other");
        Cli.Result noLimit = Cli.inProcess("run", name(), "--permits", "2", "--redis", server.uri(), "--", "true");
        assertThat(noLimit.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(noLimit.err()).contains("--permits needs --of");
    }

    @Test
    void inspectShowsReadersWritersAndPermits() throws Exception {
        String name = name();
        Lease r1 = client.readWriteLock(name).readLock().tryAcquire().orElseThrow();
        Lease r2 = client.readWriteLock(name).readLock().tryAcquire().orElseThrow();
        Lease permit = client.semaphore(name, 4).tryAcquire(3).orElseThrow();
        Cli.Result result = Cli.inProcess("inspect", name, "--redis", server.uri());
        assertThat(result.exit()).as("%s", result).isZero();
        assertThat(result.out()).contains("read-write:    read-locked by 2 readers")
                .contains("semaphore:     1 of 4 permits free, 1 holder\n")
                .contains("last fence:    " + permit.fencingToken())
                // Issue #40 (3): no plain lock of that name is in use, so none is shown as "free" first.
                .doesNotContain("state:         free");
        r1.release();
        r2.release();
        permit.release();
    }

    /**
     * Issue #40 (3): {@code release --force} said "not held; nothing removed" for a read-write lock or a semaphore
     * in use, and exited 0. It removes their holders, who find their leases lost.
     */
    @Test
    void releaseForceRemovesReadersWritersAndPermitHolders() throws Exception {
        String name = name();
        Lease r1 = client.readWriteLock(name).readLock().tryAcquire().orElseThrow();
        Lease permits = client.semaphore(name, 4).tryAcquire(2).orElseThrow();
        Cli.Result result = Cli.inProcess("release", name, "--redis", server.uri(), "--force");
        assertThat(result.exit()).as("%s", result).isZero();
        assertThat(result.out()).contains("released read-write lock '" + name + "': removed its readers and writer")
                .contains("released semaphore '" + name + "': removed its holder")
                .doesNotContain("nothing removed");
        assertThat(r1.confirm()).isFalse();
        assertThat(permits.confirm()).isFalse();
        assertThat(client.semaphore(name, 4).available()).isEqualTo(4);
        String writeName = name();
        Lease writer = client.readWriteLock(writeName).writeLock().tryAcquire().orElseThrow();
        assertThat(Cli.inProcess("release", writeName, "--redis", server.uri(), "--force").out())
                .contains("(highest fencing token " + writer.fencingToken() + ")");
        assertThat(writer.release()).isFalse();
        assertThat(Cli.inProcess("release", name(), "--redis", server.uri(), "--force").out())
                .contains("nothing removed");
    }
}
