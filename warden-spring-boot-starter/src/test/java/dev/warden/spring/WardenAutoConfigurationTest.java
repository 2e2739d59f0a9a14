package dev.warden.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.integration.WardenLeaderContext;
import dev.warden.integration.WardenLeaderInitiator;
import dev.warden.redisserver.RedisServer;
import dev.warden.redisserver.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.leader.event.OnGrantedEvent;

/** The auto-configured client, in real application contexts against a real Redis. */
@Timeout(120)
class WardenAutoConfigurationTest {
    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WardenAutoConfiguration.class));

    @Test
    void everyPropertyReachesTheClientAndItIsClosedWithTheContext() {
        LockClient[] seen = new LockClient[1];
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.key-prefix=boot:",
                        "warden.default-lease=5s", "warden.command-timeout=750ms", "warden.client-name=orders-service",
                        "warden.spin-wait=0", "warden.fair=true")
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    seen[0] = client;
                    LockConfig config = client.config();
                    assertThat(config.keyPrefix()).isEqualTo("boot:");
                    assertThat(config.defaultLease()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(config.commandTimeout()).isEqualTo(Duration.ofMillis(750));
                    assertThat(config.clientName()).isEqualTo("orders-service");
                    assertThat(config.spinWait()).isZero();
                    assertThat(config.fair()).isTrue();
                    Lease lease = client.lock("report").tryAcquire().orElseThrow();
                    assertThat((Long) REDIS.server().call("PTTL", "boot:{report}")).isBetween(1L, 5_000L);
                    assertThat(lease.release()).isTrue();
                });
        assertThatThrownBy(() -> seen[0].lock("report")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void withoutAWardenUriItUsesSpringDataRedisSettings() {
        URI uri = URI.create(REDIS.server().uri());
        runner.withPropertyValues("spring.data.redis.host=" + uri.getHost(), "spring.data.redis.port=" + uri.getPort(),
                        "spring.data.redis.database=3")
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    assertThat(client.config().redisUri()).isEqualTo(REDIS.server().uri() + "/3");
                    client.lock("spring").tryAcquire().orElseThrow().release();
                });
        runner.withPropertyValues("spring.data.redis.url=" + REDIS.server().uri())
                .run(context -> assertThat(context.getBean(LockClient.class).lock("url").tryAcquire()).isPresent());
    }

    @Test
    void anInvalidSettingFailsTheContextNamingIt() {
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.default-lease=0s")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .rootCause().hasMessage("defaultLease must be positive: PT0S"));
        runner.withPropertyValues("warden.redis-uri=http://localhost")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .rootCause().hasMessageContaining("redisUri must start with"));
    }

    @Test
    void anApplicationsOwnClientWins() {
        runner.withPropertyValues("warden.redis-uri=redis://127.0.0.1:1")
                .withUserConfiguration(OwnClient.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(LockClient.class);
                    assertThat(context.getBean(LockClient.class).config().keyPrefix()).isEqualTo("own:");
                });
    }

    @Test
    void metricsAndObservationsWhenMicrometerIsThereAndNotWhenTurnedOff() {
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri())
                .withUserConfiguration(Micrometer.class)
                .run(context -> {
                    context.getBean(LockClient.class).lock("measured").tryAcquire().orElseThrow().release();
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    await(() -> meters.find("warden.lock.held").tag("lock", "measured").timer() != null);
                    assertThat(context.getBean(Micrometer.class).stopped).containsExactly("warden.lock.acquire");
                });
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.metrics.enabled=false")
                .withUserConfiguration(Micrometer.class)
                .run(context -> {
                    context.getBean(LockClient.class).lock("unmeasured").tryAcquire().orElseThrow().release();
                    assertThat(context.getBean(MeterRegistry.class).find("warden.lock.acquire").meters()).isEmpty();
                    assertThat(context.getBean(Micrometer.class).stopped).isEmpty();
                    // The only listener left is the health endpoint's.
                    assertThat(context.getBean(LockClient.class).config().listener())
                            .containsSame(context.getBean(RecentLosses.class));
                });
        // Without Micrometer on the class path at all, the client still starts.
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri())
                .withClassLoader(new FilteredClassLoader(MeterRegistry.class, ObservationRegistry.class))
                .run(context -> assertThat(context.getBean(LockClient.class).lock("plain").tryAcquire()).isPresent());
    }

    @Test
    void aLeaderInitiatorForTheRoleWhenOneIsSetAndSpringIntegrationIsThere() throws InterruptedException {
        LockClient[] seen = new LockClient[1];
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.key-prefix=lead:",
                        "warden.leadership.role=billing")
                .withUserConfiguration(LeaderEvents.class)
                .run(context -> {
                    WardenLeaderInitiator initiator = context.getBean(WardenLeaderInitiator.class);
                    assertThat(initiator.getRole()).isEqualTo("billing");
                    assertThat(initiator.isRunning()).isTrue();
                    AbstractLeaderEvent granted = context.getBean(LeaderEvents.class).next();
                    assertThat(granted).isInstanceOf(OnGrantedEvent.class);
                    assertThat(granted.getRole()).isEqualTo("billing");
                    assertThat(((WardenLeaderContext) granted.getContext()).getEpoch()).isPositive();
                    LockClient client = context.getBean(LockClient.class);
                    seen[0] = client;
                    assertThat(client.lock("billing").isLocked()).isTrue();
                });
        // The context's shutdown stopped the initiator (before it closed the client): the lease was released.
        assertThat(seen[0]).isNotNull();
        try (LockClient observer = LockClient.create(LockConfig.builder().redisUri(REDIS.server().uri())
                .keyPrefix("lead:").build())) {
            assertThat(observer.lock("billing").isLocked()).isFalse();
        }

        // No role, or no Spring Integration: no initiator.
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri())
                .run(context -> assertThat(context).doesNotHaveBean(WardenLeaderInitiator.class)
                        .hasSingleBean(LockClient.class));
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.leadership.role=billing")
                .withClassLoader(new FilteredClassLoader(LeaderEventPublisher.class))
                .run(context -> assertThat(context).doesNotHaveBean(WardenLeaderInitiator.class)
                        .hasSingleBean(LockClient.class));
    }

    @Test
    void theHealthIndicatorSaysWhetherRedisAnswersAndWhatWasLostRecently() throws InterruptedException {
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "warden.key-prefix=health:")
                .run(context -> {
                    HealthIndicator health = context.getBean("wardenHealthIndicator", HealthIndicator.class);
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                    assertThat(health.health().getDetails()).containsEntry("leasesLostRecently", 0);
                    context.getBean(LockClient.class).lock("short").tryAcquire(Duration.ZERO, Duration.ofMillis(100))
                            .orElseThrow();
                    await(() -> context.getBean(RecentLosses.class).count() == 1);
                    assertThat(health.health().getDetails()).containsEntry("leasesLostRecently", 1)
                            .hasEntrySatisfying("lastLoss", loss -> assertThat(((RecentLosses.Lost) loss).lock())
                                    .isEqualTo("short"));
                    // The health check leaves no key: the one key is the client's identity record, written by the
                    // acquire above.
                    assertThat(REDIS.server().call("KEYS", "health:*")).asList()
                            .allSatisfy(key -> assertThat((String) key).startsWith("health:client:"));
                });
        RedisServer doomed = RedisServer.start();
        try {
            runner.withPropertyValues("warden.redis-uri=" + doomed.uri(), "warden.command-timeout=500ms")
                    .run(context -> {
                        HealthIndicator health = context.getBean("wardenHealthIndicator", HealthIndicator.class);
                        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                        doomed.kill();
                        assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
                    });
        } finally {
            doomed.close();
        }
        runner.withPropertyValues("warden.redis-uri=" + REDIS.server().uri(), "management.health.warden.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("wardenHealthIndicator"));
    }

    private static void await(java.util.function.BooleanSupplier condition) {
        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - bound).as("condition within 10 s").isNegative();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {
        @Bean(destroyMethod = "close")
        LockClient ownClient() {
            return LockClient.create(LockConfig.builder().redisUri(REDIS.server().uri()).keyPrefix("own:").build());
        }
    }

    /** An application's listener of Spring Integration's leader events. */
    @Configuration(proxyBeanMethods = false)
    static class LeaderEvents {
        final BlockingQueue<AbstractLeaderEvent> heard = new LinkedBlockingQueue<>();

        @EventListener
        void leader(AbstractLeaderEvent event) {
            heard.add(event);
        }

        AbstractLeaderEvent next() throws InterruptedException {
            AbstractLeaderEvent event = heard.poll(10, TimeUnit.SECONDS);
            assertThat(event).as("a leader event within 10 s").isNotNull();
            return event;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Micrometer {
        final List<String> stopped = new CopyOnWriteArrayList<>();

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        ObservationRegistry observationRegistry() {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new ObservationHandler<>() {
                @Override
                public void onStop(Observation.Context context) {
                    stopped.add(context.getName());
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return true;
                }
            });
            return registry;
        }
    }
}
