package dev.warden.topology;

import static dev.warden.topology.AclUser.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.DistributedSemaphore;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockConnectionException;
import dev.warden.LockException;
import dev.warden.LockInfo;
import dev.warden.MultiLease;
import dev.warden.redisserver.RedisServer;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/acl.md's rule on a Sentinel-managed master and its replica (ACLs are not replicated, so the user is created
 * on each): a client that finds the master through Sentinel and logs in to it as that user uses every feature with
 * nothing refused, before and after a failover that promotes the replica. The sentinels are asked without
 * credentials: the URI's user and password go to the master alone, and a sentinel that requires a password cannot
 * be reached.
 */
// Tagged "full": starts replicas, Sentinels or a cluster (minutes together); in `mvn -B verify -Pfull` and CI.
@Tag("full")
@Timeout(120)
class SentinelAclTest {
    private static final String MASTER = "wardenmaster";
    private static final Duration LONG_WAIT = Duration.ofSeconds(20);
    private static final Duration PROMPTLY = Duration.ofSeconds(3);
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aUserWithTheRuleOnMasterAndReplicaLocksThroughSentinelBeforeAndAfterAFailover() throws Exception {
        RedisServer master = keep(RedisServer.builder().args("--repl-diskless-sync-delay", "0").start());
        RedisServer replica = keep(RedisServer.builder().args("--replicaof", master.host(),
                Integer.toString(master.port()), "--repl-diskless-sync-delay", "0").start());
        replica.awaitReplicaSync(Duration.ofSeconds(10));
        AclUser.create(master, rule -> rule);
        AclUser.create(replica, rule -> rule);
        // One sentinel, which fails over only when told to (SENTINEL FAILOVER): a master it finds down after 60 s.
        RedisServer sentinel = keep(RedisServer.builder()
                .sentinel(MASTER, master.port(), 1, Duration.ofSeconds(60)).start());
        sentinel.awaitSentinelReady(1, 0, Duration.ofSeconds(20));
        // The sentinel's default user has no password, and the user's credentials are the master's: had the
        // client given them to the sentinel too, it would have refused them (it has no such user).
        String uri = "redis-sentinel://" + AclUser.USER + ":" + AclUser.PASSWORD + "@" + sentinel.host() + ":"
                + sentinel.port() + "#" + MASTER;
        LockClient a = client(uri);
        LockClient b = client(uri);

        useEveryFeature(a, b, "before");

        // A lease acknowledged by the replica is held while Sentinel promotes the replica and turns the old
        // master into its replica (closing every client connection of both).
        // A fixed lease of 90 s, so that no renewal is due while the old master is still a master without a replica.
        Lease held = a.lock("held").withReplicaAcks(1, Duration.ofSeconds(1))
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(90)).orElseThrow();
        assertThat(held.acknowledgements()).isEqualTo(1);
        failover(sentinel);
        sentinel.awaitLog("+switch-master", Duration.ofSeconds(30));
        assertThat((List<Object>) sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER))
                .containsExactly(replica.host(), Integer.toString(replica.port()));
        assertThat(eventually(Duration.ofSeconds(30), () -> {
            try {
                String info = (String) master.call("INFO", "replication");
                return info.contains("role:slave") && info.contains("master_link_status:up");
            } catch (java.io.UncheckedIOException e) {
                return false; // the role change closes every client connection, the test's own too: ask again
            }
        })).as("the old master replicates the promoted one").isTrue();

        // Both clients move to the promoted replica. Until they have, operations may fail (loudly), but none is
        // refused by the ACL.
        List<LockException> failures = new ArrayList<>();
        for (LockClient client : List.of(a, b)) {
            DistributedLock probe = client.lock("probe");
            Optional<Lease> lease = Optional.empty();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (lease.isEmpty() && System.nanoTime() - end < 0) {
                try {
                    lease = probe.tryAcquire();
                } catch (LockException e) {
                    failures.add(e);
                    // A pause between tries while the failover completes: the loop waits for the lock itself.
                    Thread.sleep(50);
                }
            }
            assertThat(lease).as("a lock after the failover; failures: %s", failures).isPresent();
            assertThat(lease.get().release()).isTrue();
        }
        assertThat(failures).extracting(Throwable::getMessage).noneMatch(message -> message.contains("NOPERM")
                || message.contains("no permissions") || message.contains("WRONGPASS"));

        // The promoted replica had the lease: it is still held, another client is refused, and it is released.
        assertThat(held.isHeld()).isTrue();
        assertThat(b.lock("held").tryAcquire()).isEmpty();
        assertThat(held.release()).isTrue();

        useEveryFeature(a, b, "after");
        for (RedisServer server : List.of(master, replica)) {
            assertThat(AclUser.refusals(server)).as("refusals on port %d", server.port()).isEmpty();
        }
        // Every feature after the failover ran on the promoted replica, as the user.
        assertThat(AclUser.calls(replica, "evalsha")).isPositive();
    }

    @Test
    void aSentinelThatRequiresAPasswordCannotBeReachedSinceTheCredentialsGoToTheMasterAlone() throws Exception {
        RedisServer master = keep(RedisServer.start());
        AclUser.create(master, rule -> rule);
        RedisServer sentinel = keep(RedisServer.builder()
                .sentinel(MASTER, master.port(), 1, Duration.ofSeconds(60)).start());
        sentinel.awaitSentinelReady(0, 0, Duration.ofSeconds(20));
        // The same password as the user's on the master: the client could authenticate with it, but does not try.
        sentinel.call("ACL", "SETUSER", "default", "resetpass", ">" + AclUser.PASSWORD);
        String uri = "redis-sentinel://" + AclUser.USER + ":" + AclUser.PASSWORD + "@" + sentinel.host() + ":"
                + sentinel.port() + "#" + MASTER;
        long start = System.nanoTime();
        assertThatThrownBy(() -> client(uri)).isInstanceOf(LockConnectionException.class)
                .hasMessageContaining("Redis refused the connection: NOAUTH");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        // Nor does a password given apart from the URI go to the sentinels.
        assertThatThrownBy(() -> keep(LockClient.create(LockConfig.builder()
                .redisUri("redis-sentinel://" + AclUser.USER + "@" + sentinel.host() + ":" + sentinel.port() + "#"
                        + MASTER)
                .password(AclUser.PASSWORD.toCharArray()).build())))
                .isInstanceOf(LockConnectionException.class)
                .hasMessageContaining("Redis refused the connection: NOAUTH");
        // The master itself takes the user.
        try (LockClient direct = LockClient.create(LockConfig.builder().redisUri(AclUser.uri(master)).build())) {
            assertThat(direct.lock("direct").tryAcquire().orElseThrow().release()).isTrue();
        }
    }

    /**
     * Locks of every kind between two clients, each with a waiter of the other client served by a release; a
     * forced release; inspect, the listing, and a lock with replica acknowledgements (WAIT).
     */
    private static void useEveryFeature(LockClient a, LockClient b, String phase) throws Exception {
        String name = "orders-" + phase;
        DistributedLock lock = a.lock(name);
        Lease first = lock.tryAcquire().orElseThrow();
        // Asked first: the token is drawn at the holder's first call (inspect shows it from then on).
        long firstFence = first.fencingToken();
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        CompletableFuture<Optional<Lease>> waiter = b.lock(name).tryAcquireAsync(LONG_WAIT);
        assertThat(eventually(PROMPTLY, () -> lock.inspect().waiters() == 1)).isTrue();
        LockInfo info = lock.inspect();
        assertThat(info.held()).isTrue();
        assertThat(info.lastFencingToken()).isEqualTo(firstFence);
        assertThat(first.release()).isTrue();
        Lease second = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
        long secondFence = second.fencingToken();
        assertThat(secondFence).isGreaterThan(firstFence);

        // A forced release wakes a waiter.
        CompletableFuture<Optional<Lease>> woken = a.lock(name).tryAcquireAsync(LONG_WAIT);
        assertThat(eventually(PROMPTLY, () -> lock.inspect().waiters() == 1)).isTrue();
        OptionalLong forced = b.lock(name).forceRelease();
        assertThat(forced).hasValue(secondFence);
        Lease third = woken.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(third.fencingToken()).isGreaterThan(secondFence);
        assertThat(third.release()).isTrue();

        // A read-write lock: a writer waits for a reader.
        DistributedReadWriteLock rw = a.readWriteLock("report-" + phase);
        Lease reader = rw.readLock().tryAcquire().orElseThrow();
        CompletableFuture<Optional<Lease>> writer = b.readWriteLock("report-" + phase).writeLock()
                .tryAcquireAsync(LONG_WAIT);
        assertThat(eventually(PROMPTLY, () -> rw.inspect().waiters() == 1)).isTrue();
        assertThat(reader.release()).isTrue();
        assertThat(writer.get(10, TimeUnit.SECONDS).orElseThrow().release()).isTrue();

        // A semaphore: a permit's waiter served by the release.
        DistributedSemaphore semaphore = a.semaphore("exports-" + phase, 1);
        Lease permit = semaphore.tryAcquire(1).orElseThrow();
        CompletableFuture<Optional<Lease>> permitWaiter = b.semaphore("exports-" + phase, 1)
                .tryAcquireAsync(1, LONG_WAIT);
        assertThat(eventually(PROMPTLY, () -> semaphore.inspect().waiters() == 1)).isTrue();
        assertThat(permit.release()).isTrue();
        assertThat(permitWaiter.get(10, TimeUnit.SECONDS).orElseThrow().release()).isTrue();

        // A multi-lock, and the listing while it holds its two parts.
        Lease together = b.multiLock(List.of("ledger-" + phase, "invoices-" + phase)).tryAcquire().orElseThrow();
        assertThat(((MultiLease) together).fencingToken("invoices-" + phase)).isPositive();
        assertThat(a.locks("*-" + phase, 100)).extracting(LockInfo::name)
                .containsExactly("invoices-" + phase, "ledger-" + phase);
        assertThat(together.release()).isTrue();

        // Replica acknowledgements: WAIT, counted by the replica of the master Sentinel names.
        Lease acked = a.lock("payments-" + phase).withReplicaAcks(1, Duration.ofSeconds(1)).tryAcquire()
                .orElseThrow();
        assertThat(acked.acknowledgements()).isEqualTo(1);
        assertThat(acked.release()).isTrue();
    }

    /** Tells the sentinel to fail over, once it knows the replica well enough to promote it. */
    private static void failover(RedisServer sentinel) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                sentinel.call("SENTINEL", "FAILOVER", MASTER);
                return;
            } catch (UncheckedIOException e) {
                // NOGOODSLAVE until the sentinel has the replica's INFO.
                if (!e.getMessage().contains("NOGOODSLAVE") || System.nanoTime() - end > 0) {
                    throw e;
                }
                // A pause between tries until the sentinel has the replica's INFO.
                Thread.sleep(200);
            }
        }
    }

    private LockClient client(String uri) {
        return keep(LockClient.create(LockConfig.builder().redisUri(uri)
                .commandTimeout(Duration.ofSeconds(2))
                .build()));
    }

    private <T extends AutoCloseable> T keep(T resource) {
        resources.add(resource);
        return resource;
    }
}
