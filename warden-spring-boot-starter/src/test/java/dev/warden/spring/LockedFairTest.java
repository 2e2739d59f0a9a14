package dev.warden.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.redisserver.RedisServerExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code @Locked(fair = true)} in real application contexts against a real Redis. Which mode took a lock shows in
 * its key (lock.lua): fair mode issues a fence with every acquisition, {@code "<fence>:<token>"}, whereas the default
 * mode's first try on a fresh key is a plain {@code SET NX} of {@code ":<token>"}. Which clients exist shows in
 * Redis's {@code CLIENT LIST}: each client has its own command connection, named by {@code warden.client-name}.
 */
@Timeout(120)
class LockedFairTest {
    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();
    private static final String PREFIX = "fair:";
    private static final String FENCED = "[1-9][0-9]*:[^:]+";
    private static final String UNFENCED = ":[^:]+";
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WardenAutoConfiguration.class))
            .withUserConfiguration(Services.class);

    @BeforeEach
    void empty() {
        REDIS.server().call("FLUSHALL");
    }

    /** Each method returns its lock key's value in Redis, read while it holds the lock. */
    public static class Jobs {
        final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @Locked(value = "a:#{#p0}", fair = true)
        public String fair(String id) {
            runs.incrementAndGet();
            return value("a:" + id);
        }

        @Locked(value = "b:#{#p0}", waitFor = "5s", fair = true)
        public String alsoFair(String id) {
            runs.incrementAndGet();
            return value("b:" + id);
        }

        @Locked("c:#{#p0}")
        public String plain(String id) {
            runs.incrementAndGet();
            return value("c:" + id);
        }

        private static String value(String name) {
            return (String) REDIS.server().call("GET", PREFIX + "{" + name + "}");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {
        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    /** @return contexts whose client is named {@code clientName}, on the test's Redis unless {@code more} says */
    private ApplicationContextRunner named(String clientName, String... more) {
        ApplicationContextRunner named = runner.withPropertyValues("warden.key-prefix=" + PREFIX,
                "warden.client-name=" + clientName).withPropertyValues(more);
        return more.length > 0 && more[0].startsWith("warden.quorum=") ? named
                : named.withPropertyValues("warden.redis-uri=" + REDIS.server().uri());
    }

    /** @return how many connections Redis has from clients of this name: one per client while none waits */
    private static long connections(String clientName) {
        String list = (String) REDIS.server().call("CLIENT", "LIST");
        return list.lines().filter(line -> (" " + line + " ").contains(" name=" + clientName + " ")).count();
    }

    /** Waits up to 10 s for Redis to see the connections of this name close. */
    private static long connectionsOnceClosed(String clientName) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (connections(clientName) > 0 && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        return connections(clientName);
    }

    @Test
    void aFairMethodTakesItsLockInFairModeAndADefaultOneWithThePlainSetNx() {
        named("fair-modes").run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(jobs.fair("1")).matches(FENCED);
            assertThat(jobs.alsoFair("1")).matches(FENCED);
            assertThat(jobs.plain("1")).matches(UNFENCED);
            assertThat(jobs.runs()).isEqualTo(3);
        });
    }

    @Test
    void fairCallsAreObservedAsTheApplicationClientsAre() {
        named("fair-observed").withUserConfiguration(WardenAutoConfigurationTest.Micrometer.class).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            List<String> stopped = context.getBean(WardenAutoConfigurationTest.Micrometer.class).stopped;
            assertThat(jobs.plain("1")).matches(UNFENCED);
            assertThat(stopped).containsExactly("warden.lock.acquire");
            assertThat(jobs.fair("1")).matches(FENCED);
            assertThat(stopped).containsExactly("warden.lock.acquire", "warden.lock.acquire");
        });
    }

    @Test
    void theFairClientIsMadeAtTheFirstFairCallOnceAndClosedWithItsContext() throws InterruptedException {
        named("fair-once").run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(connections("fair-once")).isEqualTo(1);
            assertThat(jobs.plain("1")).matches(UNFENCED);
            assertThat(connections("fair-once")).isEqualTo(1);
            // Eight first fair calls at once: one client is made, and all of them use it.
            ExecutorService pool = Executors.newFixedThreadPool(8);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String id = Integer.toString(i);
                calls.add(pool.submit(() -> {
                    start.await();
                    return jobs.fair(id);
                }));
            }
            start.countDown();
            for (Future<String> call : calls) {
                assertThat(call.get(30, TimeUnit.SECONDS)).matches(FENCED);
            }
            pool.shutdown();
            assertThat(connections("fair-once")).isEqualTo(2);
            assertThat(jobs.alsoFair("2")).matches(FENCED);
            assertThat(jobs.fair("9")).matches(FENCED);
            assertThat(jobs.plain("2")).matches(UNFENCED);
            assertThat(connections("fair-once")).isEqualTo(2);
            // A second context in the same JVM makes its own, and closes only its own.
            named("fair-other").run(other -> {
                assertThat(other.getBean(Jobs.class).fair("other")).matches(FENCED);
                assertThat(connections("fair-other")).isEqualTo(2);
            });
            assertThat(connectionsOnceClosed("fair-other")).isZero();
            assertThat(connections("fair-once")).isEqualTo(2);
            assertThat(jobs.fair("10")).matches(FENCED);
        });
        assertThat(connectionsOnceClosed("fair-once")).isZero();
    }

    @Test
    void aFairApplicationClientTakesEveryLockItselfAndNoOtherIsMade() {
        named("fair-app", "warden.fair=true").run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThat(jobs.fair("1")).matches(FENCED);
            assertThat(jobs.alsoFair("1")).matches(FENCED);
            assertThat(jobs.plain("1")).matches(FENCED);
            assertThat(connections("fair-app")).isEqualTo(1);
        });
    }

    @Test
    void aClientThatCannotBeFairFailsEveryFairCallNamingTheReason() {
        String uri = REDIS.server().uri();
        named("fair-quorum", "warden.quorum=" + uri + "/0," + uri + "/1," + uri + "/2")
                .run(context -> {
                    Jobs jobs = context.getBean(Jobs.class);
                    long connections = connections("fair-quorum");
                    for (int i = 0; i < 2; i++) {
                        assertThatThrownBy(() -> jobs.fair("1")).isInstanceOf(IllegalStateException.class)
                                .hasMessageStartingWith("@Locked(fair = true) on public java.lang.String "
                                        + Jobs.class.getName() + ".fair(java.lang.String): ")
                                .hasMessageEndingWith("the application's LockClient cannot be made fair: fair "
                                        + "mode is not supported with a quorum");
                    }
                    assertThat(jobs.runs()).isZero();
                    assertThat(connections("fair-quorum")).isEqualTo(connections);
                });
        named("fair-acks", "warden.replica-acks=1").run(context -> {
            assertThatThrownBy(() -> context.getBean(Jobs.class).fair("1")).isInstanceOf(IllegalStateException.class)
                    .hasMessageEndingWith("the application's LockClient cannot be made fair: fair mode is not "
                            + "supported with replicaAcks: 1");
            assertThat(connections("fair-acks")).isEqualTo(1);
        });
    }
}
