package dev.warden.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.Lease;
import dev.warden.LeaseLostException;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.redisserver.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/** {@link Locked} methods in real application contexts against a real Redis. */
@Timeout(120)
class LockedTest {
    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();
    private static LockClient observer;
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WardenAutoConfiguration.class))
            .withUserConfiguration(Services.class);

    @BeforeAll
    static void start() {
        observer = LockClient.create(LockConfig.builder().redisUri(REDIS.server().uri()).keyPrefix("locked:").build());
    }

    @AfterAll
    static void stop() {
        if (observer != null) {
            observer.close();
        }
    }

    @BeforeEach
    void empty() {
        REDIS.server().call("FLUSHALL");
    }

    /** A service as an application would write it. Tests read its state through methods: it is a proxy. */
    public static class Orders {
        /** Shared by every instance: the two application contexts stand for two processes. */
        static final AtomicInteger INSIDE = new AtomicInteger();
        static final AtomicInteger OVERLAPS = new AtomicInteger();
        final AtomicInteger runs = new AtomicInteger();
        final List<String> events = new CopyOnWriteArrayList<>();

        public int runs() {
            return runs.get();
        }

        public List<String> events() {
            return events;
        }

        @Locked(value = "orders:#{#id}", waitFor = "10s")
        public long ship(long id, long workMicros) {
            if (INSIDE.incrementAndGet() > 1) {
                OVERLAPS.incrementAndGet();
            }
            long end = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(workMicros);
            while (System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            INSIDE.decrementAndGet();
            runs.incrementAndGet();
            return CurrentLease.require().fencingToken();
        }

        @Locked("orders:#{#p0}")
        public String once(long id) {
            runs.incrementAndGet();
            return "ran " + id + " holding " + observer.lock("orders:" + id).isLocked();
        }

        @Locked(value = "report", onNotAcquired = Locked.OnNotAcquired.SKIP)
        public Optional<String> report() {
            runs.incrementAndGet();
            return Optional.of("report");
        }

        @Locked(value = "job", onNotAcquired = Locked.OnNotAcquired.SKIP)
        public void job() {
            runs.incrementAndGet();
        }

        @Locked(value = "hourly", onNotAcquired = Locked.OnNotAcquired.SKIP, holdAtLeast = "500ms")
        public void hourly() {
            runs.incrementAndGet();
        }

        @Locked(value = "slow", waitFor = "0", lease = "${test.slow-lease:300ms}")
        public void outlivesItsLease() throws InterruptedException {
            // The test's intent: work that outlasts the 300 ms lease.
            Thread.sleep(700);
        }

        @Locked(value = "tx:#{#id}", waitFor = "5s")
        @Transactional
        public void inTransaction(long id) {
            events.add("method, lock held " + observer.lock("tx:" + id).isLocked());
        }

        @Locked("future")
        public CompletableFuture<String> later() {
            return CompletableFuture.completedFuture("x");
        }
    }

    /** Calls {@link Orders} from inside its own locked methods, on the same lock names. */
    public static class Nested {
        private final Orders orders;

        public Nested(Orders orders) {
            this.orders = orders;
        }

        @Locked(value = "orders:#{#p0}", waitFor = "5s")
        public String outer(long id) {
            return orders.once(id) + ", fence " + CurrentLease.require().fencingToken();
        }

        @Locked(value = "orders:#{#p0}", waitFor = "5s")
        public String outerThatLosesTheLock(long id) {
            observer.lock("orders:" + id).forceRelease();
            return orders.once(id);
        }
    }

    /** Records when transactions begin and end, and whether the method's lock was held then. */
    static class RecordingTransactions extends AbstractPlatformTransactionManager {
        private static final long serialVersionUID = 1L;
        final transient List<String> events;

        RecordingTransactions(List<String> events) {
            this.events = events;
        }

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            events.add("begin, lock held " + observer.lock("tx:1").isLocked());
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            events.add("commit, lock held " + observer.lock("tx:1").isLocked());
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            events.add("rollback");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Services {
        @Bean
        Orders orders() {
            return new Orders();
        }

        @Bean
        Nested nested(Orders orders) {
            return new Nested(orders);
        }

        @Bean
        RecordingTransactions transactionManager(Orders orders) {
            return new RecordingTransactions(orders.events());
        }
    }

    @Test
    void twoInstancesNeverRunTheSameOrderAtOnceAndEachRunHasAHigherFence() {
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.key-prefix=locked:").run(first ->
                runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.key-prefix=locked:").run(second -> {
                    Orders a = first.getBean(Orders.class);
                    Orders b = second.getBean(Orders.class);
                    Orders.OVERLAPS.set(0);
                    List<Long> fences = new CopyOnWriteArrayList<>();
                    ExecutorService pool = Executors.newFixedThreadPool(6);
                    List<Future<?>> calls = new ArrayList<>();
                    for (int i = 0; i < 60; i++) {
                        Orders orders = i % 2 == 0 ? a : b;
                        calls.add(pool.submit(() -> fences.add(orders.ship(7, 200))));
                    }
                    for (Future<?> call : calls) {
                        call.get(60, TimeUnit.SECONDS);
                    }
                    pool.shutdown();
                    assertThat(a.runs() + b.runs()).isEqualTo(60);
                    assertThat(Orders.OVERLAPS.get()).isZero();
                    assertThat(fences).doesNotHaveDuplicates();
                    assertThat(CurrentLease.get()).isEmpty();
                    assertThat(observer.lock("orders:7").isLocked()).isFalse();
                }));
    }

    @Test
    void theNameComesFromTheArgumentsAndABusyLockThrowsOrSkips() throws InterruptedException {
        Lease held = observer.lock("orders:42").tryAcquire().orElseThrow();
        Lease report = observer.lock("report").tryAcquire().orElseThrow();
        Lease job = observer.lock("job").tryAcquire().orElseThrow();
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.key-prefix=locked:").run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThatThrownBy(() -> orders.once(42)).isInstanceOf(LockNotAcquiredException.class)
                    .hasMessage("lock 'orders:42' not acquired: the method did not run");
            assertThat(orders.once(43)).isEqualTo("ran 43 holding true");
            assertThat(orders.report()).isEmpty();
            orders.job();
            assertThat(orders.runs()).isEqualTo(1);
            report.release();
            job.release();
            assertThat(orders.report()).contains("report");
            orders.job();
            assertThat(orders.runs()).isEqualTo(3);
        });
        held.release();
    }

    /**
     * Issue #39 (7): a locked method calling another on the same lock name used to wait for itself (and fail with
     * {@link LockNotAcquiredException} after its wait). It runs inside the outer lease, confirmed with Redis first.
     */
    @Test
    void nestedLockedMethodsOnOneNameRunInsideTheOuterLease() {
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.key-prefix=locked:")
                .run(context -> {
                    Nested nested = context.getBean(Nested.class);
                    Orders orders = context.getBean(Orders.class);
                    assertThat(nested.outer(7)).startsWith("ran 7 holding true, fence ");
                    assertThat(orders.runs()).isEqualTo(1);
                    assertThat(observer.lock("orders:7").isLocked()).isFalse();

                    assertThatThrownBy(() -> nested.outerThatLosesTheLock(8))
                            .isInstanceOf(LeaseLostException.class)
                            .hasMessageContaining("before a nested @Locked method on it could run");
                    assertThat(orders.runs()).isEqualTo(1);
                    assertThat(observer.lock("orders:8").isLocked()).isFalse();
                });
    }

    @Test
    void holdAtLeastKeepsTheLockInRedisAfterAQuickRun() {
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.key-prefix=locked:").run(context -> {
            Orders orders = context.getBean(Orders.class);
            long start = System.nanoTime();
            orders.hourly();
            orders.hourly();
            assertThat(orders.runs()).isEqualTo(1);
            assertThat((Long) REDIS.server().call("PTTL", "locked:{hourly}")).isBetween(1L, 500L);
            long bound = start + TimeUnit.SECONDS.toNanos(5);
            while (observer.lock("hourly").isLocked() && System.nanoTime() < bound) {
                Thread.onSpinWait();
            }
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(450L, 5_000L);
            orders.hourly();
            assertThat(orders.runs()).isEqualTo(2);
        });
    }

    @Test
    void aLeaseLostWhileTheMethodRanFailsTheCall() {
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.key-prefix=locked:").run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThatThrownBy(orders::outlivesItsLease).isInstanceOf(LeaseLostException.class)
                    .hasMessageContaining("'slow' was lost while its @Locked method ran");
        });
    }

    @Test
    void theLockIsHeldAroundTheWholeTransaction() {
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.key-prefix=locked:").run(context -> {
            Orders orders = context.getBean(Orders.class);
            orders.inTransaction(1);
            assertThat(orders.events()).containsExactly("begin, lock held true", "method, lock held true",
                    "commit, lock held true");
            assertThat(observer.lock("tx:1").isLocked()).isFalse();
        });
    }

    @Test
    void aMethodThatReturnsAFutureIsRefused() {
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri()).run(context ->
                assertThatThrownBy(() -> context.getBean(Orders.class).later())
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("CompletableFuture"));
    }

    @Test
    void durationsTakePlaceholders() {
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.key-prefix=locked:",
                "test.slow-lease=5s").run(context -> {
                    Orders orders = context.getBean(Orders.class);
                    orders.outlivesItsLease();
                    assertThat(observer.lock("slow").isLocked()).isFalse();
                });
    }
}
