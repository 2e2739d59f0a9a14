package dev.warden.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockConnectionException;
import dev.warden.LockInfo;
import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The quorum lock (Redlock) over 3 and 5 independent servers, with servers killed and paused. */
class QuorumTest {
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final List<RedisServer> servers = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void aMajorityGrantsOneHolderAndTheNextHolderGetsAHigherFence() throws InterruptedException {
        start(3);
        DistributedLock a = client().lock("orders");
        DistributedLock b = client().lock("orders");
        Lease first = a.tryAcquire().orElseThrow();
        // Granted as soon as a majority agreed; the third server may answer later.
        assertThat(first.acknowledgements()).isBetween(2, 3);
        assertThat(b.tryAcquire()).isEmpty();
        LockInfo info = b.inspect();
        assertThat(info.held()).isTrue();
        assertThat(info.lastFencingToken()).isEqualTo(first.fencingToken());
        Optional<Lease> waiting = Optional.empty();
        Thread releaser = new Thread(() -> first.release());
        releaser.start();
        waiting = b.tryAcquire(Duration.ofSeconds(5));
        releaser.join();
        assertThat(waiting).isPresent();
        assertThat(waiting.get().fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(first.release()).isFalse();
        assertThat(waiting.get().release()).isTrue();
        assertThat(b.isLocked()).isFalse();
    }

    @Test
    void withOneOfThreeServersDownContendingClientsStillExcludeEachOther() throws InterruptedException {
        start(3);
        servers.get(0).kill();
        assertMutualExclusion(List.of(client().lock("job"), client().lock("job")), 4, Duration.ofSeconds(3));
    }

    @Test
    void withTwoOfFiveServersPausedContendingClientsStillExcludeEachOther() throws InterruptedException {
        start(5);
        servers.get(1).pause();
        servers.get(3).pause();
        try {
            assertMutualExclusion(List.of(client(Duration.ofMillis(300)).lock("job"),
                    client(Duration.ofMillis(300)).lock("job")), 4, Duration.ofSeconds(3));
        } finally {
            servers.get(1).resume();
            servers.get(3).resume();
        }
    }

    @Test
    void aMajorityDownFailsWithAClearErrorNotAnEmptyResult() {
        start(3);
        DistributedLock lock = client(Duration.ofMillis(300)).lock("orders");
        servers.get(0).kill();
        servers.get(2).kill();
        assertThatThrownBy(lock::tryAcquire).isInstanceOf(LockConnectionException.class)
                .hasMessageContaining("2 of 3 servers failed").hasMessageContaining("orders");
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(1))).isInstanceOf(LockConnectionException.class);
        assertThatThrownBy(lock::inspect).isInstanceOf(LockConnectionException.class);
    }

    @Test
    void aPausedServerThatComesBackAfterTheLeaseDoesNotMakeASecondHolder() throws InterruptedException {
        start(3);
        Lease held = client(b -> b.defaultLease(Duration.ofMillis(600))).lock("orders").tryAcquire().orElseThrow();
        DistributedLock other = client(Duration.ofMillis(300)).lock("orders");
        servers.get(0).pause();
        try {
            // The holder renews on the two live servers; the paused one's copy of the key expires meanwhile.
            assertThat(other.tryAcquire(Duration.ofMillis(1500))).isEmpty();
        } finally {
            servers.get(0).resume();
        }
        // The resumed server grants the lock again, but one server is no majority.
        assertThat(other.tryAcquire(Duration.ofMillis(500))).isEmpty();
        assertThat(held.isHeld()).isTrue();
        assertThat(held.release()).isTrue();
        assertThat(other.tryAcquire(Duration.ofSeconds(2))).isPresent();
    }

    @Test
    void theAgreedFenceIsTheMajoritysHighestSoItRisesEvenWhenThatServerIsLost() {
        start(3);
        DistributedLock lock = client().lock("orders");
        DistributedLock later = client(Duration.ofMillis(300)).lock("orders");
        long high = 4_000_000_000_000_000L;
        // Server 2's fencing counter is far ahead of the others (as a server with a fast clock would be), and
        // server 0 is paused, so that the majority is servers 1 and 2.
        servers.get(2).call("SET", "warden:{orders}", Long.toString(high), "PX", "60000");
        servers.get(0).pause();
        Lease first;
        try {
            first = lock.tryAcquire().orElseThrow();
            assertThat(first.fencingToken()).isEqualTo(high + 1);
            assertThat(first.release()).isTrue();
        } finally {
            servers.get(0).resume();
        }
        // Server 0 runs the acquire and the release that queued while it was paused; the release was written after
        // tryAcquire returned, so under load it can arrive after a later acquire: wait for it.
        long bound = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!isFree(servers.get(0).call("GET", "warden:{orders}")) && System.nanoTime() < bound) {
            Thread.onSpinWait();
        }
        // Without server 2, the majority is servers 0 and 1: server 1 was raised to the agreed fence.
        servers.get(2).kill();
        Lease second = later.tryAcquire().orElseThrow();
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(second.acknowledgements()).isEqualTo(2);
    }

    @Test
    void renewalsOnAMajorityKeepTheLeaseAndLosingTheMajorityLosesItLoudly() throws InterruptedException {
        start(3);
        Lease lease = client(b -> b.defaultLease(Duration.ofMillis(600)).commandTimeout(Duration.ofMillis(300)))
                .lock("orders").tryAcquire().orElseThrow();
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost(lost::countDown);
        servers.get(1).kill();
        assertThat(lost.await(1800, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(lease.isHeld()).isTrue();
        servers.get(2).kill();
        assertThat(lost.await(3, TimeUnit.SECONDS)).isTrue();
        assertThat(lease.isHeld()).isFalse();
    }

    @Test
    void forceReleaseAndTheLockViewWorkOnAQuorum() throws InterruptedException {
        start(3);
        DistributedLock lock = client().lock("orders");
        Lease lease = lock.tryAcquire().orElseThrow();
        // Each server keeps its own counter; the agreed fence is the majority's highest, the others' at most more.
        assertThat(lock.forceRelease().orElseThrow()).isGreaterThanOrEqualTo(lease.fencingToken());
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.release()).isFalse();
        assertThat(lease.isHeld()).isFalse();
        assertThat(lock.isLocked()).isFalse();
        Lock view = lock.asLock();
        assertThat(view.tryLock(1, TimeUnit.SECONDS)).isTrue();
        assertThat(client().lock("orders").tryAcquire()).isEmpty();
        view.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThatThrownBy(() -> lock.withReplicaAcks(1, Duration.ofMillis(100)))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aQuorumNeedsThreeDistinctServers() {
        start(3);
        assertThatThrownBy(() -> LockConfig.builder().quorum(servers.get(0).uri(), servers.get(1).uri()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("quorum needs at least 3 URIs: 2");
        assertThatThrownBy(() -> LockConfig.builder().quorum(servers.get(0).uri(), servers.get(0).uri(),
                servers.get(1).uri())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("distinct");
    }

    /** Threads of several clients take turns; a non-atomic counter inside shows any overlap. */
    private static void assertMutualExclusion(List<DistributedLock> locks, int threadsPerLock, Duration runFor)
            throws InterruptedException {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger acquired = new AtomicInteger();
        AtomicLong lastFence = new AtomicLong();
        AtomicInteger fenceRegressions = new AtomicInteger();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        long end = System.nanoTime() + runFor.toNanos();
        List<Thread> threads = new ArrayList<>();
        for (DistributedLock lock : locks) {
            for (int t = 0; t < threadsPerLock; t++) {
                threads.add(new Thread(() -> {
                    try {
                        while (System.nanoTime() - end < 0) {
                            Optional<Lease> lease = lock.tryAcquire(Duration.ofMillis(500));
                            if (lease.isEmpty()) {
                                continue;
                            }
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            long fence = lease.get().fencingToken();
                            if (lastFence.getAndSet(fence) >= fence) {
                                fenceRegressions.incrementAndGet();
                            }
                            acquired.incrementAndGet();
                            inside.decrementAndGet();
                            lease.get().release();
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join(runFor.toMillis() + 10_000);
        }
        assertThat(failures).isEmpty();
        assertThat(overlaps.get()).isZero();
        assertThat(fenceRegressions.get()).isZero();
        assertThat(acquired.get()).isGreaterThan(10);
    }

    private void start(int count) {
        for (int i = 0; i < count; i++) {
            RedisServer server = RedisServer.start();
            resources.add(server);
            servers.add(server);
        }
    }

    /** @return whether a lock key's value is that of a released lock: its fence alone */
    private static boolean isFree(Object value) {
        return value != null && !value.toString().contains(":");
    }

    private LockClient client() {
        return client(b -> { });
    }

    private LockClient client(Duration commandTimeout) {
        return client(b -> b.commandTimeout(commandTimeout));
    }

    private LockClient client(java.util.function.Consumer<LockConfig.Builder> settings) {
        LockConfig.Builder builder = LockConfig.builder()
                .quorum(servers.stream().map(RedisServer::uri).toArray(String[]::new))
                .commandTimeout(Duration.ofSeconds(1));
        settings.accept(builder);
        LockClient client = LockClient.create(builder.build());
        resources.add(client);
        return client;
    }
}
