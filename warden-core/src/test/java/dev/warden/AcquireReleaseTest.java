package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AcquireReleaseTest extends RedisTestSupport {

    @Test
    void acquireStoresARandomTokenWithAnExpiryInOneScriptAndItsFenceOnFirstAsk() throws InterruptedException {
        DistributedLock lock = recorded(client(b -> b.defaultLease(Duration.ofSeconds(7)))).lock("orders:1");
        long before = scriptCalls();
        Lease lease = lock.tryAcquire().orElseThrow();
        assertThat(scriptCalls() - before).isEqualTo(1);
        String value = (String) server.call("GET", "test:{orders:1}");
        // 96 random bits, then the origin: the client's tag and this thread's id.
        assertThat(value).matches(":[A-Za-z0-9_-]{16}\\.[A-Za-z0-9_-]{6}\\."
                + Long.toString(Thread.currentThread().getId(), 36));
        long pttl = (Long) server.call("PTTL", "test:{orders:1}");
        assertThat(pttl).isBetween(6_000L, 7_000L);
        long fence = lease.fencingToken();
        assertThat(scriptCalls() - before).isEqualTo(2);
        assertThat(server.call("GET", "test:{orders:1}")).isEqualTo(fence + value);
        assertThat((Long) server.call("PTTL", "test:{orders:1}")).isBetween(5_000L, pttl);
        assertThat(lease.fencingToken()).isEqualTo(fence);
        assertThat(scriptCalls() - before).isEqualTo(2);
        lease.release();
    }

    @Test
    void aNameOutsideAsciiIsItsUtf8KeyOnTheServer() {
        String name = "склад:ü:\uD83D\uDD12";
        Lease lease = client().lock(name).tryAcquire().orElseThrow();
        long fence = lease.fencingToken();
        String value = (String) server.call("GET", "test:{" + name + "}");
        assertThat(value).isEqualTo(fence + ":" + value.substring(value.indexOf(':') + 1));
        assertThat(client().lock(name).isLocked()).isTrue();
        assertThat(client().lock(name).tryAcquire()).isEmpty();
        assertThat(lease.release()).isTrue();
        assertThat(server.call("GET", "test:{" + name + "}")).isEqualTo(Long.toString(lease.fencingToken()));
    }

    @Test
    void everyAcquisitionHasItsOwnToken() {
        DistributedLock lock = client().lock(uniqueName());
        Set<String> tokens = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            Lease lease = lock.tryAcquire().orElseThrow();
            String value = (String) server.call("GET", "test:{" + lock.name() + "}");
            tokens.add(value.substring(value.indexOf(':') + 1));
            assertThat(lease.release()).isTrue();
        }
        assertThat(tokens).hasSize(50);
    }

    @Test
    void tryAcquireIsEmptyWhileAnotherClientHoldsTheLock() {
        String name = uniqueName();
        Lease held = client().lock(name).tryAcquire().orElseThrow();
        assertThat(client().lock(name).tryAcquire()).isEmpty();
        assertThat(held.release()).isTrue();
        assertThat(client().lock(name).tryAcquire()).isPresent();
    }

    @Test
    void releaseReturnsTrueOnceThenFalse() {
        Lease lease = client().lock(uniqueName()).tryAcquire().orElseThrow();
        assertThat(lease.release()).isTrue();
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.release()).isFalse();
        lease.close();
    }

    @Test
    void releaseAfterExpiryReturnsFalseAndKeepsNewOwner() throws Exception {
        String name = uniqueName();
        DistributedLock first = client().lock(name);
        DistributedLock second = client().lock(name);
        Lease stalled = first.tryAcquire(Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
        // The first holder stalls past its lease; the second client gets the lock.
        Lease next = second.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        assertThat(stalled.release()).isFalse();
        assertThat(stalled.isHeld()).isFalse();
        assertThat(next.isHeld()).isTrue();
        assertThat(second.inspect().held()).isTrue();
        long fence = next.fencingToken();
        assertThat((String) server.call("GET", "test:{" + name + "}")).startsWith(fence + ":");
        stalled.close();
        assertThat(next.release()).isTrue();
    }

    @Test
    void closeReleasesAndIsIdempotent() {
        DistributedLock lock = client().lock(uniqueName());
        Lease lease = lock.tryAcquire().orElseThrow();
        lease.close();
        lease.close();
        assertThat(lock.isLocked()).isFalse();
        assertThat(lease.release()).isFalse();
    }

    @Test
    void nineThreadsTryAtOnceAndExactlyOneWins() throws Exception {
        String name = uniqueName();
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            locks.add(client().lock(name));
        }
        ExecutorService pool = Executors.newFixedThreadPool(9);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Optional<Lease>>> results = new ArrayList<>();
            for (DistributedLock lock : locks) {
                Callable<Optional<Lease>> task = () -> {
                    start.await();
                    long t0 = System.nanoTime();
                    Optional<Lease> lease = lock.tryAcquire();
                    // An immediate try answers at once, winner or not.
                    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
                    return lease;
                };
                results.add(pool.submit(task));
            }
            start.countDown();
            List<Lease> winners = new ArrayList<>();
            for (Future<Optional<Lease>> result : results) {
                result.get(10, TimeUnit.SECONDS).ifPresent(winners::add);
            }
            assertThat(winners).hasSize(1);
            Lease winner = winners.get(0);
            assertThat(winner.release()).isTrue();
            assertThat(winner.release()).isFalse();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void sixteenThreadsAndFiftyAsyncWaitersOnOneClientAllGetAnswers() throws Exception {
        // One client's commands go out in batches when they arrive together: a command left unsent would time out.
        LockClient client = client();
        String shared = uniqueName();
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        for (int i = 0; i < 50; i++) {
            waiters.add(client.lock(shared).acquireAsync(Duration.ofSeconds(30)).thenAccept(lease -> {
                if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                inside.decrementAndGet();
                assertThat(lease.release()).isTrue();
            }));
        }
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<Integer>> workers = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                DistributedLock own = client.lock(uniqueName());
                workers.add(pool.submit(() -> {
                    int released = 0;
                    for (int i = 0; i < 300; i++) {
                        if (own.tryAcquire().orElseThrow().release()) {
                            released++;
                        }
                    }
                    return released;
                }));
            }
            for (Future<Integer> worker : workers) {
                assertThat(worker.get(60, TimeUnit.SECONDS)).isEqualTo(300);
            }
        } finally {
            pool.shutdownNow();
        }
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertThat(overlaps.get()).isZero();
        assertThat(client.lock(shared).isLocked()).isFalse();
    }

    @Test
    void leaseCanBeReleasedFromAnotherThread() throws Exception {
        DistributedLock lock = client().lock(uniqueName());
        Lease lease = lock.tryAcquire().orElseThrow();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            assertThat(other.submit(lease::release).get(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            other.shutdownNow();
        }
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void inspectReportsHolderTtlAndLastFence() throws InterruptedException {
        DistributedLock lock = client().lock(uniqueName());
        LockInfo free = lock.inspect();
        assertThat(free.held()).isFalse();
        assertThat(free.lastFencingToken()).isZero();
        assertThat(free.remainingLease()).isEqualTo(Duration.ZERO);
        Lease lease = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(20)).orElseThrow();
        assertThat(lock.inspect().lastFencingToken()).isZero();
        long fence = lease.fencingToken();
        LockInfo held = lock.inspect();
        assertThat(held.held()).isTrue();
        assertThat(lock.isLocked()).isTrue();
        assertThat(held.lastFencingToken()).isEqualTo(fence);
        assertThat(held.remainingLease()).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(20));
        assertThat(held.name()).isEqualTo(lock.name());
        lease.release();
        LockInfo released = lock.inspect();
        assertThat(released.held()).isFalse();
        assertThat(lock.isLocked()).isFalse();
        assertThat(released.lastFencingToken()).isEqualTo(fence);
    }

    @Test
    void forceReleaseRemovesAnyHolderAndKeepsTheFence() {
        String name = uniqueName();
        Lease lease = client().lock(name).tryAcquire().orElseThrow();
        long fence = lease.fencingToken();
        DistributedLock admin = client().lock(name);
        assertThat(admin.forceRelease()).hasValue(fence);
        assertThat(admin.forceRelease()).isEmpty();
        assertThat(lease.release()).isFalse();
        Lease next = admin.tryAcquire().orElseThrow();
        assertThat(next.fencingToken()).isGreaterThan(fence);
        next.release();
    }

    /**
     * Issue #40 (5): the forced release of a holder that never asked for a token answered {@code OptionalLong[0]},
     * a sentinel. It answers the token that holder would have had, issued then, and every later holder's is higher.
     */
    @Test
    void forceReleaseOfAHolderWithoutAFenceIssuesItsTokenAndItsLeaseCannotGetOne() {
        String name = uniqueName();
        Lease lease = client().lock(name).tryAcquire().orElseThrow();
        long removed = client().lock(name).forceRelease().orElseThrow();
        assertThat(removed).isPositive();
        // The fencing counter stays, as after any release of a fenced lock.
        assertThat(server.call("GET", "test:{" + name + "}")).isEqualTo(Long.toString(removed));
        // Still held as far as its client knows; the next holder has its token before the old one asks.
        Lease next = client().lock(name).tryAcquire().orElseThrow();
        long fence = next.fencingToken();
        assertThat(fence).isGreaterThan(removed);
        assertThatThrownBy(lease::fencingToken).isInstanceOf(LeaseLostException.class);
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.release()).isFalse();
        assertThat(next.fencingToken()).isEqualTo(fence);
        assertThat(next.release()).isTrue();
    }
}
