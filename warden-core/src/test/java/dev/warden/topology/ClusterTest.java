package dev.warden.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.Await;
import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockReplicationException;
import dev.warden.ReadWriteLockInfo;
import dev.warden.redisserver.RedisCluster;
import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import dev.warden.LockInfo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A real cluster of three masters: locks on every node's slots, waits, renewals and a slot migration; and, on
 * clusters with a replica per master, replica acknowledgements through the kill of a master.
 */
// Tagged "full": starts replicas, Sentinels or a cluster (minutes together); in `mvn -B verify -Pfull` and CI.
@Tag("full")
class ClusterTest {
    private static RedisCluster cluster;
    private final List<LockClient> clients = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
        clients.clear();
    }

    @Test
    void locksSpreadOverEveryNodeExcludeOtherClientsAndKeepEachLocksKeysInOneSlot() {
        LockClient a = client(Duration.ofSeconds(30));
        LockClient b = client(Duration.ofSeconds(30));
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            leases.add(a.lock("job-" + i + (i % 7 == 0 ? "{x" + i + "}" : "")).tryAcquire().orElseThrow());
        }
        for (RedisServer node : cluster.nodes()) {
            assertThat((Long) node.call("DBSIZE")).as("keys on port " + node.port()).isGreaterThan(20L);
        }
        for (Lease lease : leases) {
            assertThat(b.lock(lease.lockName()).tryAcquire()).isEmpty();
        }
        // The waiters' set shares the lock key's slot, braces in the name notwithstanding.
        RedisServer node = cluster.nodes().get(0);
        assertThat(node.call("CLUSTER", "KEYSLOT", "warden:{job-7%7Bx7%7D}"))
                .isEqualTo(node.call("CLUSTER", "KEYSLOT", "warden:{job-7%7Bx7%7D}:w"));
        for (Lease lease : leases) {
            assertThat(lease.release()).isTrue();
        }
        for (Lease lease : leases) {
            assertThat(b.lock(lease.lockName()).tryAcquire()).isPresent();
        }
    }

    @Test
    void aWaiterOfAnotherClientIsWokenByTheReleaseNotByTheLeaseRunningOut() throws Exception {
        LockClient a = client(Duration.ofSeconds(30));
        LockClient b = client(Duration.ofSeconds(30));
        List<Lease> held = new ArrayList<>();
        List<CompletableFuture<Optional<Lease>>> waiting = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            held.add(a.lock("wake-" + i).tryAcquire().orElseThrow());
            waiting.add(b.lock("wake-" + i).tryAcquireAsync(Duration.ofSeconds(20)));
        }
        for (int i = 0; i < 6; i++) {
            DistributedLock lock = a.lock("wake-" + i);
            Await.await(() -> lock.inspect().waiters() == 1, Duration.ofSeconds(5), "a waiter of " + lock.name());
        }
        long t0 = System.nanoTime();
        held.forEach(Lease::release);
        for (CompletableFuture<Optional<Lease>> future : waiting) {
            assertThat(future.get(10, TimeUnit.SECONDS)).isPresent();
        }
        // The leases had 30 s left: only the release messages can have woken the waiters this soon.
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void fairWaitersOnEveryNodeGetTheLocksInArrivalOrder() throws Exception {
        LockClient a = client(Duration.ofSeconds(30), true);
        LockClient b = client(Duration.ofSeconds(30), true);
        LockClient c = client(Duration.ofSeconds(30), true);
        List<Lease> held = new ArrayList<>();
        List<CompletableFuture<Lease>> first = new ArrayList<>();
        List<CompletableFuture<Lease>> second = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            held.add(a.lock("fair-" + i).tryAcquire().orElseThrow());
            first.add(b.lock("fair-" + i).acquireAsync(Duration.ofSeconds(20)));
        }
        for (int i = 0; i < 6; i++) {
            DistributedLock lock = c.lock("fair-" + i);
            Await.await(() -> lock.inspect().waiters() >= 1, Duration.ofSeconds(5), "a waiter of " + lock.name());
            second.add(lock.acquireAsync(Duration.ofSeconds(20)));
        }
        for (int i = 0; i < 6; i++) {
            DistributedLock lock = c.lock("fair-" + i);
            Await.await(() -> lock.inspect().waiters() == 2, Duration.ofSeconds(5), "two waiters of " + lock.name());
        }
        held.forEach(Lease::release);
        List<Lease> taken = new ArrayList<>();
        for (CompletableFuture<Lease> future : first) {
            taken.add(future.get(10, TimeUnit.SECONDS));
        }
        assertThat(second).noneMatch(CompletableFuture::isDone);
        taken.forEach(Lease::release);
        for (CompletableFuture<Lease> future : second) {
            assertThat(future.get(10, TimeUnit.SECONDS).release()).isTrue();
        }
        RedisServer node = cluster.nodes().get(0);
        assertThat(node.call("CLUSTER", "KEYSLOT", "warden:{fair-1}:q"))
                .isEqualTo(node.call("CLUSTER", "KEYSLOT", "warden:{fair-1}"));
    }

    @Test
    void semaphoresAndReadWriteLocksOnEveryNodeAreRenewedAndExcludeOtherClients() throws Exception {
        LockClient a = client(Duration.ofMillis(600));
        LockClient b = client(Duration.ofSeconds(30));
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            leases.add(a.semaphore("sem-" + i, 2).tryAcquire(2).orElseThrow());
            leases.add(a.readWriteLock("rw-" + i).writeLock().tryAcquire().orElseThrow());
        }
        for (RedisServer node : cluster.nodes()) {
            assertThat((Long) node.call("DBSIZE")).as("keys on port " + node.port()).isGreaterThan(5L);
        }
        // The test's intent: held through several renewals.
        Thread.sleep(2_000);
        for (int i = 0; i < 30; i++) {
            assertThat(b.semaphore("sem-" + i, 2).tryAcquire(1)).isEmpty();
            assertThat(b.readWriteLock("rw-" + i).readLock().tryAcquire()).isEmpty();
        }
        for (Lease lease : leases) {
            assertThat(lease.isHeld()).isTrue();
            assertThat(lease.release()).isTrue();
        }
        for (int i = 0; i < 30; i++) {
            assertThat(b.semaphore("sem-" + i, 2).tryAcquire(2)).isPresent();
            assertThat(b.readWriteLock("rw-" + i).readLock().tryAcquire()).isPresent();
        }
    }

    @Test
    void readersOfAnotherClientAreGrantedByTheWritersRelease() throws Exception {
        LockClient a = client(Duration.ofSeconds(30));
        LockClient b = client(Duration.ofSeconds(30));
        List<Lease> held = new ArrayList<>();
        List<CompletableFuture<Optional<Lease>>> waiting = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            held.add(a.readWriteLock("grant-" + i).writeLock().tryAcquire().orElseThrow());
            held.add(a.semaphore("grant-" + i, 1).tryAcquire(1).orElseThrow());
            waiting.add(b.readWriteLock("grant-" + i).readLock().tryAcquireAsync(Duration.ofSeconds(20)));
            waiting.add(b.semaphore("grant-" + i, 1).tryAcquireAsync(1, Duration.ofSeconds(20)));
        }
        // Each waiter, once its first try has queued it, subscribes to its client's grant channel on the node of its
        // lock's slot (sharded): a grant published before that would be found only by its next try, a second later.
        // Before Redis 7 there is no sharded pub/sub: the channels are plain ones, on the node each client's
        // pub/sub connection reached.
        boolean sharded = cluster.nodes().get(0).majorVersion() >= 7;
        for (int i = 0; i < 6; i++) {
            String lock = "warden:{grant-" + i + "}";
            RedisServer node = cluster.ownerOf(((Long) cluster.nodes().get(0).call("CLUSTER", "KEYSLOT", lock))
                    .intValue());
            Await.await(() -> (sharded ? ((List<?>) node.call("PUBSUB", "SHARDCHANNELS", lock + ":*")).size()
                    : cluster.nodes().stream().mapToInt(n -> ((List<?>) n.call("PUBSUB", "CHANNELS", lock + ":*"))
                    .size()).sum()) == 2,
                    Duration.ofSeconds(5), "the reader's and the semaphore waiter's channels of " + lock);
        }
        // None was granted out of turn meanwhile.
        for (CompletableFuture<Optional<Lease>> future : waiting) {
            assertThat(future).isNotDone();
        }
        long t0 = System.nanoTime();
        held.forEach(Lease::release);
        for (CompletableFuture<Optional<Lease>> future : waiting) {
            assertThat(future.get(10, TimeUnit.SECONDS)).isPresent();
        }
        // The leases had 30 s left, and a waiter tries on its own once a second: twelve waiters all done within half
        // a second were granted by the releases (by chance, 1 in 4,000).
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMillis(500));
    }

    @Test
    void aMultiLockAcrossSlotsTakesEveryPartOrNone() throws Exception {
        LockClient a = client(Duration.ofSeconds(30));
        LockClient b = client(Duration.ofSeconds(30));
        List<String> names = List.of("multi-a", "multi-b", "multi-c", "multi-d", "multi-e", "multi-f");
        Lease lease = a.multiLock(names).tryAcquire().orElseThrow();
        for (String name : names) {
            assertThat(b.lock(name).tryAcquire()).isEmpty();
        }
        lease.release();
        Lease blocker = b.lock("multi-d").tryAcquire().orElseThrow();
        assertThat(a.multiLock(names).tryAcquire(Duration.ofMillis(200))).isEmpty();
        for (String name : names) {
            if (!name.equals("multi-d")) {
                String part = name;
                assertThat(eventually(() -> !b.lock(part).isLocked())).as(part).isTrue();
            }
        }
        blocker.release();
    }

    @Test
    void theWatchdogRenewsLeasesOnEveryNode() throws InterruptedException {
        LockClient a = client(Duration.ofMillis(600));
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            leases.add(a.lock("renew-" + i).tryAcquire().orElseThrow());
        }
        // The test's intent: held through several renewals of their 600 ms leases.
        Thread.sleep(2_000);
        LockClient b = client(Duration.ofSeconds(30));
        for (Lease lease : leases) {
            assertThat(lease.isHeld()).isTrue();
            assertThat(b.lock(lease.lockName()).tryAcquire()).isEmpty();
        }
    }

    @Test
    void aHeldLockSurvivesTheMigrationOfItsSlotToAnotherNode() throws InterruptedException {
        LockClient a = client(Duration.ofMillis(900));
        LockClient b = client(Duration.ofSeconds(30));
        DistributedLock lock = a.lock("migrating");
        Lease lease = lock.tryAcquire().orElseThrow();
        RedisServer any = cluster.nodes().get(0);
        int slot = ((Long) any.call("CLUSTER", "KEYSLOT", "warden:{migrating}")).intValue();
        RedisServer from = cluster.ownerOf(slot);
        RedisServer to = cluster.nodes().stream().filter(n -> n != from).findFirst().orElseThrow();
        cluster.migrateSlot(slot, from, to);
        assertThat(to.call("EXISTS", "warden:{migrating}")).isEqualTo(1L);

        // The test's intent: renewals after the migration, to the slot's new owner.
        Thread.sleep(2_000);
        assertThat(lease.isHeld()).isTrue();
        assertThat(b.lock("migrating").tryAcquire()).isEmpty();
        CompletableFuture<Optional<Lease>> next = b.lock("migrating").tryAcquireAsync(Duration.ofSeconds(10));
        long fence = lease.fencingToken();
        assertThat(lease.release()).isTrue();
        Optional<Lease> taken = next.join();
        assertThat(taken).isPresent();
        assertThat(taken.get().fencingToken()).isGreaterThan(fence);
        assertThat((String) to.call("GET", "warden:{migrating}")).startsWith(
                Long.toString(taken.get().fencingToken()));
    }

    /** Whether the condition holds within 5 s. */
    private static boolean eventually(java.util.function.BooleanSupplier condition) throws InterruptedException {
        return Await.eventually(Duration.ofSeconds(5), condition);
    }

    @Test
    void locksListsTheLocksOfEveryMasterAndNotTheFreeOnes() {
        LockClient a = client(Duration.ofSeconds(30));
        LockClient b = client(Duration.ofSeconds(30));
        List<String> names = new ArrayList<>();
        Set<Integer> ports = new HashSet<>();
        RedisServer first = cluster.nodes().get(0);
        for (int i = 0; i < 60; i++) {
            String name = "listed-" + i + (i % 7 == 0 ? "{x" + i + "}" : "");
            a.lock(name).tryAcquire().orElseThrow();
            names.add(name);
            long slot = (Long) first.call("CLUSTER", "KEYSLOT", "warden:{" + name.replace("{", "%7B")
                    .replace("}", "%7D") + "}");
            ports.add(cluster.ownerOf((int) slot).port());
        }
        assertThat(ports).as("every master holds some").hasSize(3);
        // Free, with the fencing counter kept on whichever master.
        for (int i = 0; i < 20; i++) {
            Lease free = a.lock("listed-free-" + i).tryAcquire().orElseThrow();
            free.fencingToken();
            free.release();
        }
        assertThat(b.locks("listed-*", 1000)).extracting(LockInfo::name).containsExactlyInAnyOrderElementsOf(names)
                .isSorted();
        assertThat(b.locks("listed-*{x*}", 1000)).extracting(LockInfo::name)
                .containsExactlyInAnyOrderElementsOf(names.stream().filter(n -> n.contains("{x")).toList())
                .hasSize(9);
        assertThat(b.locks("listed-*", 10)).hasSize(10);
        // Read-write locks and semaphores are listed from every master too, each kind apart.
        List<String> shared = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            a.readWriteLock("listed-rw-" + i).readLock().tryAcquire().orElseThrow();
            a.semaphore("listed-sem-" + i, 2).tryAcquire(1).orElseThrow();
            shared.add("listed-rw-" + i);
        }
        assertThat(b.readWriteLocks("listed-*", 1000)).extracting(ReadWriteLockInfo::name)
                .containsExactlyInAnyOrderElementsOf(shared);
        assertThat(b.semaphores("listed-*", 1000)).hasSize(12)
                .allSatisfy(info -> assertThat(info.available()).isEqualTo(1));
        assertThat(b.locks("listed-*", 1000)).hasSize(names.size());
    }

    /** @return the slot of a lock's key (names without braces or percent signs only) */
    private static int slotOf(RedisCluster cluster, String name) {
        RedisServer any = cluster.nodes().stream().filter(RedisServer::isRunning).findFirst().orElseThrow();
        return ((Long) any.call("CLUSTER", "KEYSLOT", "warden:{" + name + "}")).intValue();
    }

    @Test
    void anAcknowledgedGrantSurvivesTheKillOfItsMasterAndTheReplicasTakeover() throws InterruptedException {
        try (RedisCluster replicated = RedisCluster.start(3, 1)) {
            LockClient a = client(replicated, b -> b.replicaAcks(1, Duration.ofMillis(500)));
            Lease lease = a.lock("orders").tryAcquire().orElseThrow();
            assertThat(lease.acknowledgements()).isEqualTo(1);
            long fence = lease.fencingToken();
            RedisServer master = replicated.ownerOf(slotOf(replicated, "orders"));

            RedisServer promoted = replicated.killMaster(master, Duration.ofSeconds(30));

            // The promoted replica has the grant: nobody else gets the lock, and its fence is the holder's.
            assertThat((String) promoted.call("GET", "warden:{orders}")).startsWith(fence + ":");
            LockClient b = client(replicated, c -> c.replicaAcks(1, Duration.ofMillis(500)));
            assertThat(b.lock("orders").withReplicaAcks(0, Duration.ofMillis(500)).tryAcquire()).isEmpty();
            assertThat(b.lock("orders").inspect().lastFencingToken()).isEqualTo(fence);
            assertThat(lease.isHeld()).isTrue();

            // The old master comes back as the new one's replica; acknowledged grants go to the new master.
            replicated.rejoinAsReplica(master, promoted, Duration.ofSeconds(30));
            assertThat(lease.release()).isTrue();
            Lease next = b.lock("orders").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(next.acknowledgements()).isEqualTo(1);
            assertThat(next.fencingToken()).isGreaterThan(fence);
            assertThat(next.release()).isTrue();
        }
    }

    @Test
    void aGrantNotAcknowledgedIsLostWithItsKilledMasterAndGrantedAgain() throws InterruptedException {
        try (RedisCluster replicated = RedisCluster.start(3, 1)) {
            LockClient a = client(replicated, b -> { });
            RedisServer master = replicated.ownerOf(slotOf(replicated, "orders"));
            RedisServer replica = replicated.replicaOf(master).orElseThrow();
            // The replica is cut off, so the grant never reaches it: asynchronous replication, at its worst.
            replica.pause();
            master.call("CLIENT", "KILL", "TYPE", "replica");
            Lease lease = a.lock("orders").tryAcquire().orElseThrow();
            master.kill();
            replica.resume();
            replicated.awaitOwner(slotOf(replicated, "orders"), replica, Duration.ofSeconds(30));

            LockClient b = client(replicated, c -> { });
            Optional<Lease> second = b.lock("orders").tryAcquire(Duration.ofSeconds(5));
            // Two leases at once: what replica acknowledgements exist to prevent.
            assertThat(second).isPresent();
            assertThat(lease.isHeld()).isTrue();
            second.get().release();
        }
    }

    @Test
    void acknowledgementsAreCountedOnTheMasterOfTheLocksSlotWithoutHoldingUpOtherCommands() throws Exception {
        try (RedisCluster replicated = RedisCluster.start(3, 1)) {
            LockClient a = client(replicated, b -> b.commandTimeout(Duration.ofSeconds(6)));
            int slot = slotOf(replicated, "orders");
            RedisServer master = replicated.ownerOf(slot);
            String elsewhere = null;
            String beside = null;
            for (int i = 0; elsewhere == null || beside == null; i++) {
                RedisServer owner = replicated.ownerOf(slotOf(replicated, "other-" + i));
                if (owner == master && beside == null) {
                    beside = "other-" + i;
                } else if (owner != master && elsewhere == null) {
                    elsewhere = "other-" + i;
                }
            }
            DistributedLock acked = a.lock("orders").withReplicaAcks(1, Duration.ofMillis(1_500));
            RedisServer replica = replicated.replicaOf(master).orElseThrow();
            replica.pause();
            try {
                // WAIT on another connection than the grant's would count no write of its own and answer at once.
                CompletableFuture<Optional<Lease>> refused = acked.tryAcquireAsync(Duration.ZERO);
                Await.await(() -> String.valueOf(master.call("CLIENT", "LIST")).contains("cmd=wait"),
                        Duration.ofSeconds(5), "the grant's WAIT blocked on the master");
                // Meanwhile the WAIT blocks only its own connection: the shared one reaches the same master.
                long start = System.nanoTime();
                Lease plain = a.lock(beside).tryAcquire().orElseThrow();
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(500);
                assertThat(refused).isNotDone();
                // Acknowledged grants of another master's slots do not wait for this replica.
                Lease other = a.lock(elsewhere).withReplicaAcks(1, Duration.ofMillis(1_500)).tryAcquire()
                        .orElseThrow();
                assertThat(other.acknowledgements()).isEqualTo(1);
                assertThatThrownBy(refused::join).hasCauseInstanceOf(LockReplicationException.class);
                assertThat(a.lock("orders").inspect().held()).isFalse();
                assertThat(plain.release()).isTrue();
                assertThat(other.release()).isTrue();
            } finally {
                replica.resume();
            }
        }
    }

    private LockClient client(Duration lease) {
        return client(lease, false);
    }

    private LockClient client(RedisCluster replicated, java.util.function.Consumer<LockConfig.Builder> settings) {
        LockConfig.Builder builder = LockConfig.builder().cluster(replicated.seedUris())
                .defaultLease(Duration.ofSeconds(30)).commandTimeout(Duration.ofSeconds(2));
        settings.accept(builder);
        LockClient client = LockClient.create(builder.build());
        clients.add(client);
        return client;
    }

    private LockClient client(Duration lease, boolean fair) {
        LockClient client = LockClient.create(LockConfig.builder().cluster(cluster.seedUri())
                .defaultLease(lease).commandTimeout(Duration.ofSeconds(2)).fair(fair).build());
        clients.add(client);
        return client;
    }
}
