package dev.warden.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.LeaseLostException;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.redisserver.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
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
