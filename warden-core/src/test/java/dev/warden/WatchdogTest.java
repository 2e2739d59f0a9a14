package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WatchdogTest extends RedisTestSupport {

    @Test
    void watchdogKeepsAOneSecondLeaseThroughAFiveSecondJob() throws Exception {
        String name = uniqueName();
        LockClient holderClient = client(b -> b.defaultLease(Duration.ofSeconds(1)));
        DistributedLock rival = client().lock(name);
        Lease lease = holderClient.lock(name).tryAcquire().orElseThrow();
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int tries = 0;
        while (System.nanoTime() - end < 0) {
            assertThat(rival.tryAcquire()).isEmpty();
            assertThat(lease.isHeld()).isTrue();
            tries++;
            // The test's intent: a rival tries every 100 ms for the 5 s of the job.
            Thread.sleep(100);
        }
        assertThat(tries).isGreaterThan(10);
        assertThat(lost).hasValue(0);
        assertThat(lease.release()).isTrue();
    }

    @Test
    void fixedLeaseIsNotRenewedAndItsHolderIsToldWhenItEnds() throws Exception {
        String name = uniqueName();
        Lease lease = client().lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(1)).orElseThrow();
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost(lost::countDown);
        long t0 = System.nanoTime();
        Lease rival = client().lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
        Duration waited = Duration.ofNanos(System.nanoTime() - t0);
        assertThat(waited).isBetween(Duration.ofMillis(700), Duration.ofSeconds(5));
        assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.remaining()).isEqualTo(Duration.ZERO);
        assertThat(lease.release()).isFalse();
        assertThat(rival.release()).isTrue();
    }

    @Test
    void renewalThatFindsAnotherOwnerReportsTheLeaseLostOnce() throws Exception {
        String name = uniqueName();
        Lease lease = client(b -> b.defaultLease(Duration.ofMillis(600))).lock(name).tryAcquire().orElseThrow();
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost(() -> {
            calls.incrementAndGet();
            lost.countDown();
        });
        client().lock(name).forceRelease();
        Lease usurper = client().lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
        assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.release()).isFalse();
        assertThat(usurper.isHeld()).isTrue();
        assertThat(client().lock(name).isLocked()).isTrue();
        // The test's intent: a window in which a second report of the loss, which must not come, would be seen.
        Thread.sleep(300);
        assertThat(calls).hasValue(1);
        // Registered after the loss: runs at once, on the calling thread.
        List<Thread> ranOn = new ArrayList<>();
        lease.onLost(() -> ranOn.add(Thread.currentThread()));
        assertThat(ranOn).containsExactly(Thread.currentThread());
        usurper.release();
    }

    @Test
    void releasesThatCrossRenewalsAreNeverReportedAsLosses() throws Exception {
        // Every lease is released about when its renewal is due, so that releases and renewals cross many times.
        // A renewal that reaches Redis after the release finds the lock gone because of that release: no loss.
        LockClient racing = client(b -> b.defaultLease(Duration.ofMillis(300)));
        AtomicInteger lost = new AtomicInteger();
        AtomicInteger notReleased = new AtomicInteger();
        AtomicInteger cycles = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 100; t++) {
            DistributedLock lock = racing.lock(uniqueName());
            long hold = 99 + t % 3;
            Thread thread = new Thread(() -> {
                try {
                    while (System.nanoTime() - end < 0) {
                        Lease lease = lock.acquire();
                        lease.onLost(lost::incrementAndGet);
                        // The test's intent: holding the lease about until its renewal falls due.
                        Thread.sleep(hold);
                        if (!lease.release()) {
                            notReleased.incrementAndGet();
                        }
                        cycles.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(thread.isAlive()).as("%s ended within 30 s", thread.getName()).isFalse();
        }
        assertThat(failure.get()).isNull();
        assertThat(cycles.get()).isGreaterThan(1_000);
        assertThat(notReleased).hasValue(0);
        assertThat(lost).hasValue(0);
    }

    @Test
    void leaseIsLostWhenRedisCannotBeReachedBeforeItsDeadline() throws Exception {
        Lease lease = client(b -> b.defaultLease(Duration.ofMillis(900)).commandTimeout(Duration.ofMillis(300)))
                .lock(uniqueName()).tryAcquire().orElseThrow();
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost(lost::countDown);
        long t0 = System.nanoTime();
        server.pause();
        try {
            assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
            // Lost at its local deadline: no later than the lease, and not long before it.
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMillis(1500));
            assertThat(lease.isHeld()).isFalse();
        } finally {
            server.resume();
        }
        assertThat(lease.release()).isFalse();
    }

    @Test
    void manyLeasesAreRenewedInFewBatchedRoundTripsOnOneThread() throws Exception {
        LockClient client = client(b -> b.defaultLease(Duration.ofMillis(900)));
        int threadsBefore = Thread.activeCount();
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            leases.add(client.lock(uniqueName()).tryAcquire().orElseThrow());
        }
        long scriptsBefore = scriptCalls();
        // The test's intent: the renewals of 2 s are counted.
        Thread.sleep(2_000);
        long renewCalls = scriptCalls() - scriptsBefore;
        // Unbatched, 300 leases renewed every 300 ms for 2 s would take about 2,000 calls.
        assertThat(renewCalls).isBetween(2L, 100L);
        assertThat(Thread.activeCount() - threadsBefore).isLessThan(10);
        for (Lease lease : leases) {
            assertThat(lease.isHeld()).isTrue();
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void releasedLeaseIsNeverRenewedAgain() throws Exception {
        String name = uniqueName();
        Lease lease = client(b -> b.defaultLease(Duration.ofMillis(300))).lock(name).tryAcquire().orElseThrow();
        assertThat(lease.release()).isTrue();
        long before = scriptCalls();
        // The test's intent: a window of two renewal periods in which a renewal, which must not come, would be seen.
        Thread.sleep(700);
        assertThat(scriptCalls() - before).isZero();
        assertThat(client().lock(name).isLocked()).isFalse();
    }
}
