package dev.warden.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.LeaseLostException;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockException;
import dev.warden.redisserver.RedisProxy;
import dev.warden.redisserver.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.integration.support.locks.DistributedLock;

/** {@link WardenLockRegistry} against the behaviours Spring Integration documents for its registries. */
@Timeout(60)
class WardenLockRegistryTest {
    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();
    private final List<LockClient> clients = new ArrayList<>();
    private LockClient observer;

    @BeforeEach
    void empty() {
        REDIS.server().call("FLUSHALL");
        observer = client();
    }

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
    }

    @Test
    void obtainGivesTheSameLockForAKeyAndTakesOnlyStrings() {
        WardenLockRegistry registry = new WardenLockRegistry(client(), "orders");
        assertThat(registry.obtain("7")).isSameAs(registry.obtain("7")).isNotSameAs(registry.obtain("8"));
        assertThatThrownBy(() -> registry.obtain(7)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("strings");
        assertThatThrownBy(() -> registry.obtain("7").newCondition())
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aLockIsReentrantForItsThreadAndOnlyTheOutermostUnlockReleasesItInRedis() {
        WardenLockRegistry registry = new WardenLockRegistry(client(), "orders");
        Lock lock = registry.obtain("7");
        lock.lock();
        assertThat(lock.tryLock()).isTrue();
        lock.lock();
        assertThat(observer.lock("orders:7").isLocked()).isTrue();
        lock.unlock();
        lock.unlock();
        assertThat(observer.lock("orders:7").isLocked()).isTrue();
        lock.unlock();
        assertThat(observer.lock("orders:7").isLocked()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anUnlockByAnotherThreadIsRefusedAndTheLockStaysHeld() throws Exception {
        WardenLockRegistry registry = new WardenLockRegistry(client(), "orders");
        Lock lock = registry.obtain("7");
        lock.lock();
        AtomicReference<Throwable> refused = new AtomicReference<>();
        Thread other = new Thread(() -> {
            try {
                lock.unlock();
            } catch (Throwable e) {
                refused.set(e);
            }
        });
        other.start();
        other.join(5_000);
        assertThat(refused.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("not held by this");
        assertThat(observer.lock("orders:7").isLocked()).isTrue();
        lock.unlock();
        assertThat(observer.lock("orders:7").isLocked()).isFalse();
    }

    @Test
    void tryLockWithATimeWaitsForAReleaseInAnotherProcess() throws Exception {
        Lock here = new WardenLockRegistry(client(), "orders").obtain("7");
        Lock there = new WardenLockRegistry(client(), "orders").obtain("7");
        there.lock();
        long start = System.nanoTime();
        assertThat(here.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(150L, 3_000L);
        CountDownLatch trying = new CountDownLatch(1);
        Future<Boolean> got = Executors.newSingleThreadExecutor().submit(() -> {
            trying.countDown();
            boolean locked = here.tryLock(5, TimeUnit.SECONDS);
            if (locked) {
                here.unlock();
            }
            return locked;
        });
        trying.await();
        TimeUnit.MILLISECONDS.sleep(100);
        there.unlock();
        assertThat(got.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void threadsOfTwoProcessesNeverOverlapAndExecuteLockedWorks() throws Exception {
        WardenLockRegistry first = new WardenLockRegistry(client(), "orders");
        WardenLockRegistry second = new WardenLockRegistry(client(), "orders");
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger runs = new AtomicInteger();
        List<Long> fences = new java.util.concurrent.CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<?>> work = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            WardenLockRegistry registry = i % 2 == 0 ? first : second;
            boolean viaExecuteLocked = i % 3 == 0;
            work.add(pool.submit(() -> {
                Runnable critical = () -> {
                    if (inside.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                    }
                    fences.add(registry.lease("7").orElseThrow().fencingToken());
                    inside.decrementAndGet();
                    runs.incrementAndGet();
                };
                if (viaExecuteLocked) {
                    registry.executeLocked("7", critical::run);
                } else {
                    Lock lock = registry.obtain("7");
                    lock.lock();
                    try {
                        critical.run();
                    } finally {
                        lock.unlock();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : work) {
            f.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(runs.get()).isEqualTo(120);
        assertThat(overlaps.get()).isZero();
        assertThat(fences).doesNotHaveDuplicates();
        assertThat(observer.lock("orders:7").isLocked()).isFalse();
    }

    @Test
    void unusedLocksExpireFromTheCacheButHeldOnesStay() {
        WardenLockRegistry registry = new WardenLockRegistry(client(), "orders");
        Lock unused = registry.obtain("1");
        Lock held = registry.obtain("2");
        held.lock();
        registry.expireUnusedOlderThan(0);
        assertThat(registry.obtain("1")).isNotSameAs(unused);
        assertThat(registry.obtain("2")).isSameAs(held);
        held.unlock();
        Lock recent = registry.obtain("3");
        registry.expireUnusedOlderThan(60_000);
        assertThat(registry.obtain("3")).isSameAs(recent);
        registry.expireUnusedOlderThan(0);
        assertThat(registry.obtain("2")).isNotSameAs(held);
    }

    @Test
    void renewLockMovesAFixedLeasesExpiryInRedis() throws Exception {
        WardenLockRegistry registry = new WardenLockRegistry(client(), "jobs", Duration.ofMillis(500));
        Lock lock = registry.obtain("nightly");
        lock.lock();
        assertThat(pttl("si:{jobs:nightly}")).isBetween(1L, 500L);
        registry.renewLock("nightly", Duration.ofSeconds(10));
        assertThat(pttl("si:{jobs:nightly}")).isBetween(9_000L, 10_000L);
        TimeUnit.MILLISECONDS.sleep(700);
        assertThat(observer.lock("jobs:nightly").isLocked()).as("past the first 500 ms").isTrue();
        registry.renewLock("nightly");
        assertThat(pttl("si:{jobs:nightly}")).isBetween(1L, 500L);
        Future<?> other = Executors.newSingleThreadExecutor().submit(() -> registry.renewLock("nightly"));
        assertThatThrownBy(() -> other.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        lock.unlock();
        assertThatThrownBy(() -> registry.renewLock("nightly")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aRenewedRegistryRefusesATtlButTakesOneFromLockWithTtl() {
        WardenLockRegistry registry = new WardenLockRegistry(client(), "jobs");
        DistributedLock lock = registry.obtain("a");
        lock.lock();
        registry.renewLock("a");
        assertThatThrownBy(() -> registry.renewLock("a", Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("watchdog");
        lock.unlock();
        lock.lock(Duration.ofMillis(800));
        assertThat(pttl("si:{jobs:a}")).isBetween(1L, 800L);
        registry.renewLock("a", Duration.ofSeconds(5));
        assertThat(pttl("si:{jobs:a}")).isBetween(4_000L, 5_000L);
        lock.unlock();
    }

    @Test
    void anUnlockAfterTheLeaseWasLostIsLoud() throws Exception {
        WardenLockRegistry registry = new WardenLockRegistry(client(), "jobs", Duration.ofMillis(200));
        Lock lock = registry.obtain("short");
        lock.lock();
        TimeUnit.MILLISECONDS.sleep(400);
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("lost before unlock").hasCauseInstanceOf(LeaseLostException.class);
        // The thread no longer holds it: the next lock works.
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    @Test
    void anInterruptedLockInterruptiblyLeavesNothingHeld() throws Exception {
        WardenLockRegistry registry = new WardenLockRegistry(client(), "orders");
        Lock there = new WardenLockRegistry(client(), "orders").obtain("9");
        there.lock();
        Lock here = registry.obtain("9");
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                here.lockInterruptibly();
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        waiter.start();
        TimeUnit.MILLISECONDS.sleep(200);
        waiter.interrupt();
        waiter.join(5_000);
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        there.unlock();
        assertThat(here.tryLock(5, TimeUnit.SECONDS)).isTrue();
        here.unlock();
        assertThat(observer.lock("orders:9").isLocked()).isFalse();
    }

    // Issue #39, item 2: a reentrant acquire asks Redis; a lost lease is never reported as held.

    @Test
    void aReentrantAcquireAsksRedisAndFailsOnceAnotherRegistryTookTheLock() throws Exception {
        // Spring Integration's testExpireTwoRegistries, with leases still valid by the local clock: only Redis knows.
        WardenLockRegistry registry1 = new WardenLockRegistry(client(), "jobs", Duration.ofSeconds(30));
        WardenLockRegistry registry2 = new WardenLockRegistry(client(), "jobs", Duration.ofSeconds(30));
        DistributedLock lock1 = registry1.obtain("k");
        Lock lock2 = registry2.obtain("k");
        assertThat(lock1.tryLock()).isTrue();
        assertThat(lock1.tryLock()).as("reentrant while held").isTrue();
        lock1.unlock();
        assertThat(lock2.tryLock()).isFalse();
        assertThat(observer.lock("jobs:k").forceRelease()).isPresent(); // as an expiry in Redis would
        assertThat(lock2.tryLock()).isTrue();

        assertThat(lock1.tryLock()).as("reentrant, but registry 2 holds it").isFalse();
        assertThat(lock1.tryLock(50, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(lock1.tryLock(Duration.ofMillis(50), Duration.ofSeconds(5))).isFalse();
        assertThatThrownBy(lock1::lock).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> lock1.lock(Duration.ofSeconds(5))).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(lock1::lockInterruptibly).isInstanceOf(LeaseLostException.class);
        assertThat(registry1.lease("k")).as("no lease reported for a lost hold").isEmpty();
        assertThatThrownBy(() -> registry1.renewLock("k")).isInstanceOf(LeaseLostException.class);

        // The failed re-entries left the outer hold as it was: its unlock balances it, loudly, and only it.
        assertThatThrownBy(lock1::unlock).isInstanceOf(ConcurrentModificationException.class);
        assertThatThrownBy(lock1::unlock).isInstanceOf(IllegalStateException.class);
        assertThat(observer.lock("jobs:k").isLocked()).as("registry 2's hold is untouched").isTrue();
        lock2.unlock();
        assertThat(lock1.tryLock()).isTrue();
        lock1.unlock();
    }

    @Test
    void aReentrantAcquireOfAWatchdogLeaseAlsoAsksRedis() {
        WardenLockRegistry registry = new WardenLockRegistry(client(), "orders");
        Lock lock = registry.obtain("w");
        lock.lock();
        assertThat(observer.lock("orders:w").forceRelease()).isPresent();
        assertThat(lock.tryLock()).isFalse();
        assertThatThrownBy(lock::lock).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
        assertThat(registry.lease("w")).isEmpty();
    }

    @Test
    void aReentrantAcquireOfAnExpiredLeaseFailsEvenWhenNobodyTookTheLock() throws Exception {
        WardenLockRegistry registry = new WardenLockRegistry(client(), "jobs", Duration.ofMillis(100));
        Lock lock = registry.obtain("e");
        assertThat(lock.tryLock()).isTrue();
        eventually(() -> !observer.lock("jobs:e").isLocked(), "the 100 ms lease expired in Redis");
        // RedisLockRegistry would take the free key again and say true: the gap would go unnoticed.
        assertThat(lock.tryLock()).isFalse();
        assertThat(observer.lock("jobs:e").isLocked()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
    }

    @Test
    void aReentrantAcquireThatRedisCannotAnswerThrowsAndLeavesTheHoldCount() throws Exception {
        try (RedisProxy proxy = RedisProxy.start(REDIS.server().port())) {
            LockClient viaProxy = LockClient.create(LockConfig.builder().redisUri(proxy.uri()).keyPrefix("si:")
                    .commandTimeout(Duration.ofMillis(300)).build());
            clients.add(viaProxy);
            WardenLockRegistry registry = new WardenLockRegistry(viaProxy, "jobs", Duration.ofSeconds(30));
            Lock lock = registry.obtain("cut");
            lock.lock();
            proxy.blackhole();
            assertThatThrownBy(lock::tryLock).isInstanceOf(LockException.class)
                    .isNotInstanceOf(LeaseLostException.class);
            assertThatThrownBy(lock::lock).isInstanceOf(LockException.class)
                    .isNotInstanceOf(LeaseLostException.class);
            proxy.heal();
            assertThat(lock.tryLock()).as("Redis answers again; the lease is still held").isTrue();
            lock.unlock();
            lock.unlock(); // the outer hold: no third
            assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
            assertThat(observer.lock("jobs:cut").isLocked()).isFalse();
        }
    }

    // Issue #39, item 3: setRenewalTaskScheduler is honoured.

    @Test
    void aSchedulerRenewsFixedLeasesUntilUnlockAndThenLeavesNoTask() throws Exception {
        try (RecordingScheduler scheduler = new RecordingScheduler()) {
            WardenLockRegistry registry = new WardenLockRegistry(client(), "jobs", Duration.ofMillis(600));
            registry.setRenewalTaskScheduler(scheduler);
            Lock lock = registry.obtain("renewed");
            assertThat(lock.tryLock()).isTrue();
            lock.lock(); // reentrant: no second task
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_800);
            for (int i = 0; i < 1_000 && System.nanoTime() < end; i++) { // three leases' worth, sampled
                assertThat(pttl("si:{jobs:renewed}")).as("sample " + i).isBetween(1L, 600L);
                TimeUnit.MILLISECONDS.sleep(50);
            }
            assertThat(registry.lease("renewed")).isPresent();
            lock.unlock();
            lock.unlock();
            assertThat(scheduler.scheduled()).hasSize(1);
            assertThat(scheduler.live()).isZero();
            assertThat(scheduler.queued()).isZero();
            assertThat(observer.lock("jobs:renewed").isLocked()).isFalse();
        }
    }

    @Test
    void destroyCancelsTheRenewalsOfHeldLocks() throws Exception {
        try (RecordingScheduler scheduler = new RecordingScheduler()) {
            WardenLockRegistry registry = new WardenLockRegistry(client(), "jobs", Duration.ofMillis(300));
            registry.setRenewalTaskScheduler(scheduler);
            Lock a = registry.obtain("a");
            Lock b = registry.obtain("b");
            a.lock();
            b.lock();
            assertThat(scheduler.live()).isEqualTo(2);
            ((DisposableBean) (Object) registry).destroy();
            assertThat(scheduler.live()).isZero();
            assertThat(scheduler.queued()).isZero();
            // Nothing renews them any more: they expire, and their unlocks say so.
            eventually(() -> !observer.lock("jobs:a").isLocked() && !observer.lock("jobs:b").isLocked(),
                    "the leases expired");
            assertThatThrownBy(a::unlock).isInstanceOf(ConcurrentModificationException.class);
            assertThatThrownBy(b::unlock).isInstanceOf(ConcurrentModificationException.class);
            // A destroyed registry still locks, without renewals.
            a.lock();
            a.unlock();
            assertThat(scheduler.scheduled()).hasSize(2);
        }
    }

    @Test
    void aRenewalThatFindsTheLeaseLostStopsAndMarksItLost() throws Exception {
        try (RecordingScheduler scheduler = new RecordingScheduler()) {
            Duration ttl = Duration.ofSeconds(3);
            WardenLockRegistry registry = new WardenLockRegistry(client(), "jobs", ttl);
            registry.setRenewalTaskScheduler(scheduler);
            Lock lock = registry.obtain("taken");
            long acquired = System.nanoTime();
            lock.lock();
            CountDownLatch lost = new CountDownLatch(1);
            AtomicLong lostAt = new AtomicLong();
            registry.lease("taken").orElseThrow().onLost(() -> {
                lostAt.set(System.nanoTime());
                lost.countDown();
            });
            assertThat(observer.lock("jobs:taken").forceRelease()).isPresent();
            assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
            // The first renewal, a third of the lease in, finds it: well before its local deadline would.
            assertThat(Duration.ofNanos(lostAt.get() - acquired)).as("found by a renewal, before the lease's end")
                    .isLessThan(Duration.ofMillis(2_000));
            eventually(() -> scheduler.live() == 0, "the renewal task stopped");
            assertThat(scheduler.queued()).isZero();
            assertThat(registry.lease("taken")).isEmpty();
            assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
        }
    }

    @Test
    void aWatchdogRegistryTakesASchedulerForItsFixedLeasesOnly() throws Exception {
        try (RecordingScheduler scheduler = new RecordingScheduler()) {
            WardenLockRegistry registry = new WardenLockRegistry(client(), "orders");
            registry.setRenewalTaskScheduler(scheduler);
            DistributedLock lock = registry.obtain("x");
            lock.lock();
            assertThat(scheduler.scheduled()).as("the watchdog renews it").isEmpty();
            lock.unlock();
            lock.lock(Duration.ofMillis(600));
            assertThat(scheduler.live()).isEqualTo(1);
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_500);
            for (int i = 0; i < 1_000 && System.nanoTime() < end; i++) {
                assertThat(pttl("si:{orders:x}")).as("sample " + i).isBetween(1L, 600L);
                TimeUnit.MILLISECONDS.sleep(50);
            }
            lock.unlock();
            assertThat(scheduler.live()).isZero();
        }
    }

    @Test
    void renewLockWithATtlMovesTheScheduledRenewalsToIt() throws Exception {
        try (RecordingScheduler scheduler = new RecordingScheduler()) {
            WardenLockRegistry registry = new WardenLockRegistry(client(), "jobs", Duration.ofMillis(600));
            registry.setRenewalTaskScheduler(scheduler);
            Lock lock = registry.obtain("moved");
            lock.lock();
            registry.renewLock("moved", Duration.ofSeconds(6));
            assertThat(scheduler.live()).isEqualTo(1);
            assertThat(scheduler.scheduled()).hasSize(2);
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_000);
            for (int i = 0; i < 1_000 && System.nanoTime() < end; i++) {
                assertThat(pttl("si:{jobs:moved}")).as("not shortened back to 600 ms").isGreaterThan(3_000L);
                TimeUnit.MILLISECONDS.sleep(50);
            }
            lock.unlock();
            assertThat(scheduler.live()).isZero();
        }
    }

    @Test
    void aSchedulerThatRefusesTheRenewalFailsTheLockAndLeavesNothingHeld() {
        RecordingScheduler scheduler = new RecordingScheduler();
        scheduler.close(); // as a scheduler destroyed before the registry
        WardenLockRegistry registry = new WardenLockRegistry(client(), "jobs", Duration.ofSeconds(30));
        registry.setRenewalTaskScheduler(scheduler);
        Lock lock = registry.obtain("refused");
        assertThatThrownBy(lock::lock).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(lock::tryLock).isInstanceOf(RejectedExecutionException.class);
        assertThat(observer.lock("jobs:refused").isLocked()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        assertThat(registry.lease("refused")).isEmpty();
    }

    private static void eventually(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waiting until " + what).isNegative();
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

    private static long pttl(String key) {
        return (Long) REDIS.server().call("PTTL", key);
    }

    private LockClient client() {
        LockClient client = LockClient.create(LockConfig.builder().redisUri(REDIS.server().uri()).keyPrefix("si:")
                .build());
        clients.add(client);
        return client;
    }
}
