package dev.warden.spring;

import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockListener;
import dev.warden.integration.WardenLeaderInitiator;
import dev.warden.micrometer.ObservedLocks;
import dev.warden.micrometer.WardenMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * A {@link LockClient} from the {@code warden.*} properties ({@link WardenProperties}), closed with the context;
 * none if the application defines its own. {@link Locked} methods on every bean. With Micrometer present, the
 * client's metrics in the application's {@link MeterRegistry} and its acquire calls as observations
 * ({@code warden.metrics.*}); with Spring Boot's health module, a {@code warden} health indicator
 * ({@code management.health.warden.enabled}); with {@code warden-spring-integration} and
 * {@code warden.leadership.role}, a {@link WardenLeaderInitiator} for that role.
 */
@AutoConfiguration
@ConditionalOnClass(LockClient.class)
@EnableConfigurationProperties(WardenProperties.class)
public class WardenAutoConfiguration {
    /**
     * The client: {@code warden.*} settings; every {@link LockListener} bean (and the starter's own: metrics,
     * recent losses for the health endpoint) as its listener; then the {@link LockConfigCustomizer} beans; then,
     * when Micrometer observations are on, wrapped so that each acquire call is observed.
     *
     * @return the client, closed when the context closes
     * @throws IllegalArgumentException if a setting is invalid (the message names it)
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    LockClient wardenLockClient(WardenProperties properties, Environment environment,
                                ObjectProvider<LockListener> listeners,
                                ObjectProvider<ListenerSource> sources,
                                ObjectProvider<LockConfigCustomizer> customizers,
                                ObjectProvider<ClientWrapper> wrapper) {
        LockConfig.Builder builder = LockConfig.builder();
        WardenConfigs.apply(properties, SpringRedisSettings.read(environment), builder);
        List<LockListener> all = new ArrayList<>(listeners.orderedStream().toList());
        sources.orderedStream().forEach(source -> source.listener().ifPresent(all::add));
        LockListener listener = CompositeListener.of(all);
        if (listener != null) {
            builder.listener(listener);
        }
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        LockClient client = LockClient.create(builder.build());
        ClientWrapper wrap = wrapper.getIfAvailable();
        return wrap == null ? client : wrap.wrap(client);
    }

    /**
     * Proxies beans with {@link Locked} methods.
     *
     * @return the post-processor
     */
    @Bean
    @ConditionalOnMissingBean
    public static LockedPostProcessor wardenLockedPostProcessor() {
        return new LockedPostProcessor();
    }

    /** A listener the starter adds when what it needs is there at the client's creation (a MeterRegistry). */
    @FunctionalInterface
    interface ListenerSource {
        Optional<LockListener> listener();
    }

    /** Wraps the client after it is built: observations, when Micrometer is there. */
    @FunctionalInterface
    interface ClientWrapper {
        LockClient wrap(LockClient client);
    }

    /** Actuator's health endpoint, when Spring Boot's health module is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.AbstractHealthIndicator")
    @ConditionalOnProperty(prefix = "management.health.warden", name = "enabled", matchIfMissing = true)
    static class HealthConfiguration {
        /** The leases the auto-configured client lost in the last five minutes. */
        @Bean
        RecentLosses wardenRecentLosses() {
            return new RecentLosses(Clock.systemUTC(), Duration.ofMinutes(5));
        }

        /** Shown as {@code warden} by the health endpoint. */
        @Bean
        @ConditionalOnMissingBean(name = "wardenHealthIndicator")
        WardenHealthIndicator wardenHealthIndicator(LockClient client, RecentLosses losses) {
            return new WardenHealthIndicator(client, losses);
        }
    }

    /**
     * Spring Integration's leader election, only when {@code warden-spring-integration} (an optional dependency of
     * this starter) and Spring Integration are on the class path, and {@code warden.leadership.role} is set.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({WardenLeaderInitiator.class, LeaderEventPublisher.class})
    @ConditionalOnProperty(prefix = "warden.leadership", name = "role")
    static class LeadershipConfiguration {
        /**
         * A candidate of the election named by the role, started with the context and stopped at its shutdown; it
         * publishes {@code OnGrantedEvent} and {@code OnRevokedEvent} to the context. None if the application defines
         * its own.
         */
        @Bean
        @ConditionalOnMissingBean
        WardenLeaderInitiator wardenLeaderInitiator(LockClient client, WardenProperties properties) {
            return new WardenLeaderInitiator(client, properties.getLeadership().getRole());
        }
    }

    /** Micrometer's part, only when it is on the class path. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({MeterRegistry.class, WardenMetrics.class})
    @ConditionalOnProperty(prefix = "warden.metrics", name = "enabled", matchIfMissing = true)
    static class MicrometerConfiguration {
        /** Records the client's metrics in the application's registry, if it has one. */
        @Bean
        ListenerSource wardenMetrics(ObjectProvider<MeterRegistry> registry, WardenProperties properties) {
            return () -> Optional.ofNullable(registry.getIfAvailable()).map(meters -> {
                WardenMetrics.Builder metrics = WardenMetrics.builder(meters);
                if (!properties.getMetrics().isLockTag()) {
                    metrics.withoutLockTag();
                }
                return metrics.build();
            });
        }

        /** Observes acquire calls, if the application has an observation registry. */
        @Bean
        @ConditionalOnClass(ObservationRegistry.class)
        @ConditionalOnProperty(prefix = "warden.metrics", name = "observations", matchIfMissing = true)
        ClientWrapper wardenObservations(ObjectProvider<ObservationRegistry> registry, WardenProperties properties) {
            return client -> {
                ObservationRegistry observations = registry.getIfAvailable();
                if (observations == null || observations.isNoop()) {
                    return client;
                }
                return properties.getMetrics().isLockTag() ? ObservedLocks.wrap(client, observations)
                        : ObservedLocks.wrap(client, observations, name -> null);
            };
        }
    }
}
