package dev.warden.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.Await;
import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockConnectionException;
import dev.warden.LockInfo;
import dev.warden.internal.script.ScriptSources;
import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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
    void theAsyncFormsWorkOnAQuorum() throws Exception {
        start(3);
        DistributedLock lock = client().lock("async");
        Lease lease = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(5)).orElseThrow();
        assertThat(lease.fencingTokenAsync().get(10, TimeUnit.SECONDS)).isEqualTo(lease.fencingToken());
        assertThat(lease.extendAsync(Duration.ofSeconds(60)).get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(lease.remaining()).isGreaterThan(Duration.ofSeconds(50));
        LockInfo info = lock.inspectAsync().get(10, TimeUnit.SECONDS);
        assertThat(info.held()).isTrue();
        assertThat(info.lastFencingToken()).isEqualTo(lease.fencingToken());
        assertThat(lease.releaseAsync().get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.isLockedAsync().get(10, TimeUnit.SECONDS)).isFalse();
        Lease next = lock.tryAcquire().orElseThrow();
        // The highest fence among the servers that held it: one may keep a counter above the agreed fence.
        assertThat(lock.forceReleaseAsync().get(10, TimeUnit.SECONDS).orElseThrow())
                .isGreaterThanOrEqualTo(next.fencingToken());
        assertThat(next.release()).isFalse();
    }

    /** {@link Lease#confirm()} asks every server: held while a majority holds it, lost once one cannot. */
    @Test
    void aLeaseIsConfirmedWhileAMajorityHoldsIt() throws Exception {
        start(3);
        DistributedLock lock = client().lock("confirmed");
        Lease lease = lock.acquire();
        assertThat(lease.confirm()).isTrue();
        servers.get(0).call("FLUSHALL");
        assertThat(lease.confirmAsync().get(10, TimeUnit.SECONDS)).isTrue();
        servers.get(1).call("FLUSHALL");
        assertThat(lease.confirm()).isFalse();
        assertThat(lease.isHeld()).isFalse();
    }

    @Test
    void leasesReleasedAsSoonAsTheyAreGrantedAreNotLeftWithTheWatchdog() throws Exception {
        start(3);
        LockClient client = client();
        DistributedLock lock = client.lock("quick");
        List<Thread> threads = new ArrayList<>();
        AtomicInteger released = new AtomicInteger();
        for (int t = 0; t < 4; t++) {
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < 100; i++) {
                        Optional<Lease> lease = lock.tryAcquire(Duration.ofMillis(500));
                        if (lease.isPresent() && lease.get().release()) {
                            released.incrementAndGet();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join(60_000);
        }
        assertThat(released.get()).isGreaterThan(10);
        // Every lease was released: closing has nothing to release, and says so by not warning.
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            client.close();
        } finally {
            System.setErr(err);
        }
        assertThat(captured.toString(java.nio.charset.StandardCharsets.UTF_8)).doesNotContain("could not release");
    }

    @Test
    void aMajorityThatGrantsOnlyAfterTheLeaseRanOutGrantsNothingAndIsReleasedEverywhere() throws Exception {
        start(3);
        DistributedLock lock = client(b -> b.commandTimeout(Duration.ofSeconds(3))).lock("late");
        // Two of three servers stall (SIGSTOP, before the acquire is sent) for longer than the lease, 700 ms: their
        // grants come back after it ran out.
        List<CompletableFuture<Void>> stalls = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            RedisServer server = servers.get(i);
            server.pause();
            stalls.add(CompletableFuture.runAsync(server::resume,
                    CompletableFuture.delayedExecutor(700, TimeUnit.MILLISECONDS)));
        }
        long start = System.nanoTime();
        Optional<Lease> lease = lock.tryAcquire(Duration.ZERO, Duration.ofMillis(500));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(lease).as("a lease whose validity ran out before a majority granted it").isEmpty();
        assertThat(tookMillis).isGreaterThanOrEqualTo(500);
        // Released on every server at once, not left to expire (the stalled servers set theirs late, with 500 ms).
        long bound = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
        while (!servers.stream().allMatch(server -> isFreeOrAbsent(server.call("GET", "warden:{late}")))
                && System.nanoTime() - bound < 0) {
            Thread.onSpinWait();
        }
        for (RedisServer server : servers) {
            assertThat(isFreeOrAbsent(server.call("GET", "warden:{late}"))).as("server %d", server.port()).isTrue();
        }
        for (CompletableFuture<Void> stall : stalls) {
            stall.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aMajorityGrantedWithinTheLeaseButInsideTheDriftMarginGrantsNothingAndIsReleasedEverywhere()
            throws Exception {
        start(3);
        // A 60 s lease allows for 602 ms of drift (1 % + 2 ms). The client's clock jumps ahead while the servers
        // hold the acquire, so that the grants come back 59.5 s (and the real time the servers were paused, a few
        // hundred ms) after it was sent: within the lease, but not within the lease less the drift.
        Duration leaseTime = Duration.ofSeconds(60);
        Duration shortOfTheLease = Duration.ofMillis(500);
        Thread[] acquirer = new Thread[1];
        CountDownLatch acquirerReadTheClock = new CountDownLatch(1);
        AtomicLong offset = new AtomicLong();
        dev.warden.Ticker ticker = () -> {
            if (Thread.currentThread() == acquirer[0]) {
                acquirerReadTheClock.countDown();
            }
            return System.nanoTime() + offset.get();
        };
        // Commands are timed by the same ticker: a timeout longer than the jump keeps the jump from timing out
        // the acquire's requests in flight (which a CI run saw), so that only the validity check decides.
        DistributedLock lock = client(b -> b.ticker(ticker).commandTimeout(Duration.ofMinutes(2))).lock("drift");
        // The scripts are known to every server (a first call is sent twice), and the lock is free everywhere.
        assertThat(lock.tryAcquire(Duration.ZERO, leaseTime).orElseThrow().release()).isTrue();
        AtomicReference<Optional<Lease>> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        servers.forEach(RedisServer::pause);
        long pausedAt = System.nanoTime();
        try {
            acquirer[0] = new Thread(() -> {
                try {
                    result.set(lock.tryAcquire(Duration.ZERO, leaseTime));
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            acquirer[0].start();
            assertThat(acquirerReadTheClock.await(5, TimeUnit.SECONDS)).isTrue();
            // The acquire is sent just after its send time is read; give it time to reach the (paused) servers, which
            // cannot be asked whether it has.
            Thread.sleep(150);
            offset.addAndGet(leaseTime.minus(shortOfTheLease).toNanos());
        } finally {
            servers.forEach(RedisServer::resume);
        }
        acquirer[0].join(10_000);
        long realMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
        assertThat(failure.get()).isNull();
        assertThat(result.get()).as("a majority whose grants came back %d ms short of the lease, inside the drift"
                + " margin (%d ms real time)", shortOfTheLease.toMillis(), realMillis).isEmpty();
        // Every server granted it: the grants are given back on all of them at once, not left for 60 s.
        Await.eventually(Duration.ofSeconds(3),
                () -> servers.stream().allMatch(server -> isFreeOrAbsent(server.call("GET", "warden:{drift}"))));
        for (RedisServer server : servers) {
            assertThat(isFreeOrAbsent(server.call("GET", "warden:{drift}"))).as("server %d", server.port()).isTrue();
        }
    }

    @Test
    void anAcquireAndAReleaseDecideOnTheFirstMajorityWithoutWaitingForAPausedServer() throws Exception {
        start(3);
        DistributedLock lock = client(b -> b.commandTimeout(Duration.ofSeconds(3))).lock("early");
        assertThat(lock.tryAcquire().orElseThrow().release()).isTrue();
        servers.get(2).pause();
        try {
            long start = System.nanoTime();
            Lease lease = lock.tryAcquire().orElseThrow();
            long acquiredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(lease.acknowledgements()).isEqualTo(2);
            start = System.nanoTime();
            assertThat(lease.release()).isTrue();
            long releasedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // Far below the 3 s the paused server would take to time out.
            assertThat(acquiredMillis).isLessThan(1_000);
            assertThat(releasedMillis).isLessThan(1_000);
        } finally {
            servers.get(2).resume();
        }
    }

    /**
     * Waits for an acquire to run on the server (its first run there loads the script, which was flushed), then for
     * the lock "orders" to be free there: what was sent after the acquire to undo it ran after it.
     */
    private static void assertFreeAfterTheAcquire(RedisServer server, String otherwise) throws InterruptedException {
        Await.await(() -> "1".equals(String.valueOf(((List<?>) server.call("SCRIPT", "EXISTS",
                ScriptSources.sha("acquire"))).get(0))), Duration.ofSeconds(5), "the acquire to reach the server");
        assertThat(Await.eventually(Duration.ofSeconds(2), () -> isFreeOrAbsent(server.call("GET", "warden:{orders}"))))
                .as("%s: %s", otherwise, server.call("GET", "warden:{orders}")).isTrue();
    }

    private static boolean isFreeOrAbsent(Object value) {
        return value == null || isFree(value);
    }

    /**
     * A try that lost gives its grants back, also to a server that has not answered yet. That give-back must reach
     * the server after the try's acquire: had the acquire gone by SHA to a server that no longer knows the script
     * (restarted, flushed, or never sent it), its source would follow behind the give-back, and the server would
     * grant the lock to a try that had ended, for a whole lease, to nobody. Here server 0 forgets the lock and every
     * script but the release, and is paused while the contender tries, so that the other servers decide the try.
     */
    @Test
    void aGiveBackReachesAServerAfterTheAcquireItTakesBack() throws InterruptedException {
        start(3);
        LockClient holder = client(Duration.ofSeconds(5));
        LockClient contender = client(Duration.ofSeconds(5));
        // The contender has run the acquire script on every server: it sends it by SHA from now on.
        assertThat(contender.lock("warm-up").tryAcquire().orElseThrow().release()).isTrue();
        Lease held = holder.lock("orders").tryAcquire().orElseThrow();
        RedisServer forgetful = servers.get(0);
        forgetful.call("DEL", "warden:{orders}");
        forgetful.call("SCRIPT", "FLUSH");
        forgetful.call("SCRIPT", "LOAD", ScriptSources.source("release"));
        forgetful.pause();
        try {
            // Held on servers 1 and 2: decided without server 0, whose answer and give-back are still to come.
            assertThat(contender.lock("orders").tryAcquire()).isEmpty();
        } finally {
            forgetful.resume();
        }
        // The contender's acquire runs on server 0 once it is back; its give-back must run after it.
        assertFreeAfterTheAcquire(forgetful, "server 0 holds the lock for a try that ended");
        assertThat(held.release()).isTrue();
    }

    /** As the give-back above, a lease's release follows an acquire that had not answered when it was granted. */
    @Test
    void aReleaseReachesAServerAfterTheAcquireOfItsLease() throws InterruptedException {
        start(3);
        LockClient client = client(Duration.ofSeconds(5));
        RedisServer forgetful = servers.get(0);
        forgetful.call("SCRIPT", "FLUSH");
        forgetful.call("SCRIPT", "LOAD", ScriptSources.source("release"));
        forgetful.pause();
        try {
            // Granted and released by servers 1 and 2 while server 0 owes its answers.
            Lease lease = client.lock("orders").tryAcquire().orElseThrow();
            assertThat(lease.release()).isTrue();
        } finally {
            forgetful.resume();
        }
        assertFreeAfterTheAcquire(forgetful, "server 0 holds the lock for a released lease");
    }

    /**
     * A waiter's next try does not wait for a paused server to answer its last one (or time out): only its request
     * to that server does. The release is heard from the two live servers, and the waiter gets the lock from them.
     */
    @Test
    void aPausedServerDoesNotHoldUpAWaiterAfterARelease() throws Exception {
        start(3);
        // A paused server's requests time out after 20 s: far beyond how long a grant may take here.
        Lease held = client(Duration.ofSeconds(20)).lock("orders").tryAcquire().orElseThrow();
        DistributedLock waiter = client(Duration.ofSeconds(20)).lock("orders");
        servers.get(2).pause();
        try {
            CompletableFuture<Optional<Lease>> waiting = waiter.tryAcquireAsync(Duration.ofSeconds(20));
            // Its first try registered on both live servers, and owes server 2 its answer.
            Await.await(() -> servers.subList(0, 2).stream()
                    .allMatch(server -> Long.valueOf(1).equals(server.call("ZCARD", "warden:{orders}:w"))),
                    Duration.ofSeconds(5), "the waiter to register on servers 0 and 1");
            long released = System.nanoTime();
            assertThat(held.release()).isTrue();
            Lease lease = waiting.get(15, TimeUnit.SECONDS).orElseThrow();
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
            assertThat(tookMillis).as("ms from the release to the waiter's grant").isLessThan(5_000);
            assertThat(lease.release()).isTrue();
        } finally {
            servers.get(2).resume();
        }
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
    void extendAndReleaseAfterSetTheExpiryOnTheServersThatHoldIt() throws InterruptedException {
        start(3);
        DistributedLock lock = client(Duration.ofMillis(300)).lock("orders");
        Lease lease = lock.tryAcquire(Duration.ZERO, Duration.ofMillis(400)).orElseThrow();
        servers.get(0).kill();
        assertThat(lease.extend(Duration.ofSeconds(20))).isTrue();
        for (int i = 1; i < 3; i++) {
            assertThat((Long) servers.get(i).call("PTTL", "warden:{orders}")).isBetween(19_000L, 20_000L);
        }
        // The test's intent: past the first lease (400 ms).
        Thread.sleep(600);
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.releaseAfter(Duration.ofMillis(500))).isTrue();
        assertThat(lease.isHeld()).isFalse();
        for (int i = 1; i < 3; i++) {
            assertThat((Long) servers.get(i).call("PTTL", "warden:{orders}")).isBetween(1L, 500L);
        }
        DistributedLock other = client(Duration.ofMillis(300)).lock("orders");
        assertThat(other.tryAcquire()).isEmpty();
        Lease next = other.tryAcquire(Duration.ofSeconds(3), Duration.ofSeconds(10)).orElseThrow();
        // One server left: no majority can tell, so extend fails loudly rather than guessing.
        servers.get(1).kill();
        assertThatThrownBy(() -> next.extend(Duration.ofSeconds(20))).isInstanceOf(LockConnectionException.class);
    }

    @Test
    void locksListWhatAMajorityHoldsAndGoOnWithoutAServerAMajorityCanDoWithout() throws Exception {
        start(3);
        LockClient client = client();
        Lease held = client.lock("held").tryAcquire().orElseThrow();
        // The third server may answer the acquire after the majority did.
        Await.await(() -> servers.stream().allMatch(s -> String.valueOf(s.call("GET", "warden:{held}")).contains(":")),
                Duration.ofSeconds(10), "lock 'held' on every server");
        // One server alone holds a lock, as an acquire that failed to get a majority leaves it: not held.
        servers.get(0).call("SET", "warden:{minority}", ":sometoken", "PX", "60000");
        // The test's intent: the hold lasts long enough to be shown (at least 40 ms).
        Thread.sleep(50);

        List<LockInfo> locks = client.locks("*");
        assertThat(locks).extracting(LockInfo::name).containsExactly("held");
        LockInfo info = locks.get(0);
        assertThat(info.held()).isTrue();
        assertThat(info.lastFencingToken()).isEqualTo(held.fencingToken());
        assertThat(info.holder()).isPresent();
        // A quorum issues its fence at the acquire: the hold time is known.
        assertThat(info.heldFor()).hasValueSatisfying(d -> assertThat(d).isBetween(Duration.ofMillis(40),
                Duration.ofSeconds(20)));
        assertThat(client.locksAsync("h*", 10).get(10, TimeUnit.SECONDS)).extracting(LockInfo::name)
                .containsExactly("held");
        // A quorum has no shared locks, and lists none.
        assertThat(client.readWriteLocks("*", 10)).isEmpty();
        assertThat(client.semaphoresAsync("*", 10).get(10, TimeUnit.SECONDS)).isEmpty();

        servers.get(2).kill();
        assertThat(client.locks("*")).extracting(LockInfo::name).containsExactly("held");
        servers.get(1).kill();
        assertThatThrownBy(() -> client.locks("*")).isInstanceOf(LockConnectionException.class)
                .hasMessageContaining("2 of 3 servers failed");
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

    @Test
    void aQuorumClientRunsOnTheThreadsOfOneClient() throws InterruptedException {
        start(3);
        int before = clientThreads();
        LockClient single = LockClient.create(LockConfig.builder().redisUri(servers.get(0).uri()).build());
        int singleThreads = busyThreads(single) - before;
        single.close();
        awaitThreadsAtMost(before);
        int quorumThreads = busyThreads(client()) - before;
        // Each server of the old quorum client had threads of its own: 3 servers cost about 3 clients' threads.
        assertThat(singleThreads).isPositive();
        // One more for a computation thread that Lettuce may start late.
        assertThat(quorumThreads).as("threads of a quorum client against " + singleThreads + " of a single-server one")
                .isLessThanOrEqualTo(singleThreads + 1);
    }

    @Test
    void renewalsOfManyLeasesCostOneRequestPerServerPerPeriod() throws InterruptedException {
        start(3);
        DistributedLock[] locks = new DistributedLock[50];
        LockClient client = client(b -> b.defaultLease(Duration.ofMillis(900)));
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < locks.length; i++) {
            leases.add(client.lock("many-" + i).tryAcquire().orElseThrow());
        }
        for (RedisServer server : servers) {
            server.call("CONFIG", "RESETSTAT");
        }
        // Three renewal periods (a third of the lease each) and a little more.
        long start = System.nanoTime();
        // The test's intent: the renewals of a second are counted.
        Thread.sleep(1_000);
        double periods = (System.nanoTime() - start) / 300e6;
        for (RedisServer server : servers) {
            long renewals = evalshaCalls(server);
            // One request per period for all 50 leases, not one per lease (which made 50 per period); a period
            // whose leases straddle two ticks may take two.
            assertThat(renewals).as("renewal requests on " + server.uri()).isBetween(2L, (long) (2 * periods) + 2);
        }
        assertThat(leases).allMatch(Lease::isHeld);
        for (Lease lease : leases) {
            assertThat(lease.release()).isTrue();
        }
    }

    /** Lettuce's and Warden's threads now alive. */
    private static int clientThreads() {
        int n = 0;
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            String name = thread.getName();
            n += thread.isAlive() && (name.startsWith("lettuce-") || name.startsWith("warden-")) ? 1 : 0;
        }
        return n;
    }

    /**
     * The threads alive once the client has made each kind of its threads work: five rounds of a holder and a
     * waiter that is seen waiting (subscribed, registered) before the holder releases to it.
     */
    private static int busyThreads(LockClient client) throws InterruptedException {
        DistributedLock lock = client.lock("threads");
        for (int round = 0; round < 5; round++) {
            Lease held = lock.tryAcquire().orElseThrow();
            AtomicLong acquired = new AtomicLong();
            Thread waiter = new Thread(() -> {
                try {
                    lock.tryAcquire(Duration.ofSeconds(5)).ifPresent(lease -> {
                        acquired.incrementAndGet();
                        lease.release();
                    });
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            waiter.start();
            Await.eventually(Duration.ofSeconds(5), () -> lock.inspect().waiters() > 0);
            held.release();
            waiter.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(acquired.get()).isEqualTo(1);
        }
        return clientThreads();
    }

    private static void awaitThreadsAtMost(int count) throws InterruptedException {
        Await.eventually(Duration.ofSeconds(10), () -> clientThreads() <= count);
        assertThat(clientThreads()).as("threads after close").isLessThanOrEqualTo(count);
    }

    private static long evalshaCalls(RedisServer server) {
        for (String line : ((String) server.call("INFO", "commandstats")).split("\r\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                return Long.parseLong(line.replaceAll("^cmdstat_evalsha:calls=(\\d+),.*", "$1"));
            }
        }
        return 0;
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
