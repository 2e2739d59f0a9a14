package dev.warden.topology;

import static dev.warden.topology.AclUser.eventually;
import static dev.warden.topology.AclUser.without;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockConnectionException;
import dev.warden.LockException;
import dev.warden.LockInfo;
import dev.warden.MultiLease;
import dev.warden.redisserver.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/acl.md's rule on every server of a quorum (three independent servers): every quorum feature as that user,
 * with nothing refused on any server; and what a right missing on one server, or on a majority, does.
 */
// Tagged "full": starts replicas, Sentinels or a cluster (minutes together); in `mvn -B verify -Pfull` and CI.
@Tag("full")
@Timeout(120)
class QuorumAclTest {
    /** A wait far longer than any refusal, or any wake-up by a release, may take. */
    private static final Duration LONG_WAIT = Duration.ofSeconds(20);
    private static final Duration PROMPTLY = Duration.ofSeconds(3);
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final List<RedisServer> servers = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void aUserWithTheRuleOnEveryServerUsesEveryQuorumFeatureAndNothingIsRefused() throws Exception {
        start(3);
        LockClient a = client(settings -> { });
        LockClient b = client(settings -> { });
        DistributedLock lock = a.lock("orders");

        // A try: granted by every server, each running the scripts as the user (not only by a majority, which
        // would hide one server's refusal).
        Lease first = lock.tryAcquire().orElseThrow();
        awaitHeldOnEveryServer("orders");
        assertThat(b.lock("orders").tryAcquire()).isEmpty();
        LockInfo info = b.lock("orders").inspect();
        assertThat(info.held()).isTrue();
        assertThat(info.lastFencingToken()).isEqualTo(first.fencingToken());

        // A contended handoff: a waiter of another client is woken by the release (PUBLISH to its SUBSCRIBE on the
        // servers), not by the holder's 30 s lease running out.
        CompletableFuture<Optional<Lease>> waiter = b.lock("orders").tryAcquireAsync(LONG_WAIT);
        awaitWaiters(lock, 1);
        long releasedAt = System.nanoTime();
        assertThat(first.release()).isTrue();
        Lease second = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(PROMPTLY);
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(first.release()).isFalse();
        assertThat(second.release()).isTrue();

        // Each contended step below on a lock of its own: a quorum's waiter that a late server saw still held
        // stays counted there until the holder's TTL (waiters of a quorum are only counted, not queued).

        // A blocking acquire(), handed over the same way.
        DistributedLock reports = b.lock("reports");
        Lease holding = reports.tryAcquire().orElseThrow();
        CompletableFuture<Lease> blocked = CompletableFuture.supplyAsync(() -> acquire(a.lock("reports")));
        awaitWaiters(reports, 1);
        assertThat(holding.release()).isTrue();
        Lease handed = blocked.get(10, TimeUnit.SECONDS);
        assertThat(handed.fencingToken()).isGreaterThan(holding.fencingToken());
        assertThat(handed.release()).isTrue();

        // A forced release with a waiter to wake: the waiter gets the lock, the old lease is gone.
        DistributedLock exports = a.lock("exports");
        Lease third = exports.tryAcquire().orElseThrow();
        CompletableFuture<Optional<Lease>> woken = b.lock("exports").tryAcquireAsync(LONG_WAIT);
        awaitWaiters(exports, 1);
        OptionalLong forced = b.lock("exports").forceRelease();
        assertThat(forced).isPresent();
        assertThat(forced.getAsLong()).isGreaterThanOrEqualTo(third.fencingToken());
        Lease fourth = woken.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(fourth.fencingToken()).isGreaterThan(third.fencingToken());
        assertThat(third.release()).isFalse();
        assertThat(fourth.release()).isTrue();
        assertThat(exports.isLocked()).isFalse();

        // A fixed lease, extended on the servers.
        Lease fixed = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(5)).orElseThrow();
        assertThat(fixed.extend(Duration.ofSeconds(60))).isTrue();
        assertThat(fixed.remaining()).isGreaterThan(Duration.ofSeconds(50));
        assertThat(fixed.release()).isTrue();

        // A multi-lock, one part held by the other client, so that it waits; the listing while it holds both.
        Lease part = a.lock("ledger").tryAcquire().orElseThrow();
        CompletableFuture<Optional<MultiLease>> all = b.multiLock(List.of("ledger", "invoices")).tryAcquireAsync(LONG_WAIT);
        awaitWaiters(a.lock("ledger"), 1);
        assertThat(part.release()).isTrue();
        Lease together = all.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(((MultiLease) together).fencingToken("invoices")).isPositive();
        assertThat(a.locks("*", 100)).filteredOn(LockInfo::held).extracting(LockInfo::name)
                .containsExactly("invoices", "ledger");
        assertThat(together.release()).isTrue();

        // The watchdog renews a short lease on the servers past its end.
        Lease renewed = client(settings -> settings.defaultLease(Duration.ofMillis(600))).lock("nightly").acquire();
        // The test's intent: past the lease's end (600 ms).
        Thread.sleep(1_500);
        assertThat(renewed.isHeld()).isTrue();
        assertThat(b.lock("nightly").inspect().held()).isTrue();
        assertThat(renewed.release()).isTrue();

        for (RedisServer server : servers) {
            // Channels nobody waits on are given up after their linger (UNSUBSCRIBE), on every server.
            assertThat(eventually(Duration.ofSeconds(10), () -> AclUser.calls(server, "unsubscribe") > 0))
                    .as("UNSUBSCRIBE on port %d", server.port()).isTrue();
            assertThat(AclUser.calls(server, "subscribe")).as("SUBSCRIBE on port %d", server.port()).isPositive();
            assertThat(AclUser.refusals(server)).as("refusals on port %d", server.port()).isEmpty();
        }
    }

    @Test
    void aRightMissingOnOneServerCountsAsThatServersFailureAndOnAMajorityFailsNamingIt() throws Exception {
        start(3);
        AclUser.create(servers.get(0), without("+eval", "+evalsha"));
        DistributedLock lock = client(settings -> { }).lock("orders");

        // One server refuses every script. The two others are a majority: the lock is granted by them, and the
        // caller is told nothing (no exception, no event); the refusal shows in that server's ACL log, and in a
        // warning that names the server and what it answered.
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        Lease lease;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            lease = lock.tryAcquire().orElseThrow();
        } finally {
            System.setErr(err);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).contains("WARN")
                .containsPattern("quorum server \\S*127\\.0\\.0\\.1:" + servers.get(0).port() + " failed a request")
                .contains("no permissions to run the 'eval' command");
        assertThat(lease.acknowledgements()).isEqualTo(2);
        assertThat(servers.get(0).call("GET", "warden:{orders}")).isNull();
        assertThat(lock.inspect().held()).isTrue();
        assertThat(lease.release()).isTrue();
        assertThat(AclUser.refusals(servers.get(0))).isNotEmpty()
                .allMatch(refusal -> refusal.contains("eval"), "a refusal of EVAL or EVALSHA");
        assertThat(AclUser.refusals(servers.get(1))).isEmpty();

        // Missing on a second server too: no majority is possible, and every operation fails at once, naming the
        // refusal; a wait does not wait it out.
        AclUser.create(servers.get(1), without("+eval", "+evalsha"));
        // A quorum's acquire goes by EVAL, its inspect by EVALSHA.
        String[] named = {"2 of 3 servers failed", "no permissions to run the 'eval"};
        refusedPromptly(lock::tryAcquire, named);
        refusedPromptly(() -> lock.tryAcquire(LONG_WAIT), named);
        refusedPromptly(lock::acquire, named);
        refusedPromptly(lock::inspect, named);
    }

    @Test
    void withoutSubscribeOnEveryServerAWaitIsNotRefusedButLeftToTheHoldersLease() throws Exception {
        start(3);
        for (RedisServer server : servers) {
            AclUser.create(server, without("+subscribe"));
        }
        DistributedLock holder = client(settings -> { }).lock("orders");
        DistributedLock other = client(settings -> { }).lock("orders");
        long acquiredAt = System.nanoTime();
        Lease held = holder.tryAcquire(Duration.ZERO, Duration.ofSeconds(4)).orElseThrow();
        // A single server fails such a wait at once, naming SUBSCRIBE (AclTest). A quorum's waiter that cannot
        // subscribe on a server leaves the wait to its timers, here on every server: no error, the release wakes
        // nobody, and the waiter tries again when the holder's 4 s lease it was told of runs out.
        CompletableFuture<Optional<Lease>> waiting = other.tryAcquireAsync(LONG_WAIT);
        awaitWaiters(holder, 1);
        for (RedisServer server : servers) {
            assertThat(eventually(PROMPTLY, () -> !AclUser.refusals(server).isEmpty())).isTrue();
        }
        // The waiter's try after its (refused) subscriptions: not a condition this test can see (the try leaves no
        // mark of its own on the servers); 300 ms for it.
        Thread.sleep(300);
        assertThat(held.release()).isTrue();
        Lease next = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - acquiredAt)).isGreaterThan(Duration.ofMillis(3_500));
        assertThat(next.release()).isTrue();
        for (RedisServer server : servers) {
            assertThat(AclUser.refusals(server)).as("refusals on port %d", server.port()).isNotEmpty()
                    .allMatch(refusal -> refusal.contains("subscribe"), "a refusal of SUBSCRIBE");
        }
    }

    @Test
    void aServerWithoutTheUserIsLeftOutOfTheQuorumAndWithoutAMajorityTheClientFailsToConnect() throws Exception {
        start(3);
        // The user is missing on one server (its password is refused): the client connects to the other two,
        // which are a majority, and locks with them; the third is retried in the background.
        servers.get(2).call("ACL", "DELUSER", AclUser.USER);
        DistributedLock lock = client(settings -> { }).lock("orders");
        Lease lease = lock.tryAcquire().orElseThrow();
        assertThat(lease.acknowledgements()).isEqualTo(2);
        assertThat(lease.release()).isTrue();

        // Missing on two: the client fails to connect, with the server's refusal as the cause.
        servers.get(1).call("ACL", "DELUSER", AclUser.USER);
        long start = System.nanoTime();
        assertThatThrownBy(() -> client(settings -> { })).isInstanceOf(LockConnectionException.class)
                .hasMessageContaining("reached 1 of 3 servers")
                .cause().hasMessageContaining("WRONGPASS");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PROMPTLY);
    }

    /** Three servers, each with the user of the rule. */
    private void start(int count) throws IOException {
        for (int i = 0; i < count; i++) {
            RedisServer server = RedisServer.start();
            resources.add(server);
            servers.add(server);
            AclUser.create(server, rule -> rule);
        }
    }

    /** A quorum client logged in to every server as the user. */
    private LockClient client(Consumer<LockConfig.Builder> settings) {
        LockConfig.Builder builder = LockConfig.builder()
                .quorum(servers.stream().map(AclUser::uri).toArray(String[]::new))
                .commandTimeout(Duration.ofSeconds(2));
        settings.accept(builder);
        LockClient client = LockClient.create(builder.build());
        resources.add(client);
        return client;
    }

    /** Waits until {@code lock} counts {@code count} waiters. */
    private static void awaitWaiters(DistributedLock lock, int count) throws InterruptedException {
        int[] last = {-1};
        assertThat(eventually(PROMPTLY, () -> (last[0] = lock.inspect().waiters()) == count))
                .as(() -> "waiters of " + lock.name() + ": " + last[0]).isTrue();
    }

    /** Waits until every server's key of the lock holds a lease (a token after the fence). */
    private void awaitHeldOnEveryServer(String name) throws InterruptedException {
        for (RedisServer server : servers) {
            assertThat(eventually(PROMPTLY, () -> {
                Object value = server.call("GET", "warden:{" + name + "}");
                return value != null && value.toString().contains(":");
            })).as("held on port %d", server.port()).isTrue();
        }
    }

    private static Lease acquire(DistributedLock lock) {
        try {
            return lock.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(e);
        }
    }

    /** Asserts that a call fails with a {@link LockException} within {@link #PROMPTLY}, saying all of {@code texts}. */
    private static void refusedPromptly(ThrowingCallable call, String... texts) {
        long start = System.nanoTime();
        assertThatThrownBy(call).isInstanceOf(LockException.class).message().contains(texts);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PROMPTLY);
    }
}
