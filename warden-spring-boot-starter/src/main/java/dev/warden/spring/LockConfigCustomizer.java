package dev.warden.spring;

import dev.warden.LockConfig;

/**
 * Changes the configuration of the auto-configured {@link dev.warden.LockClient} after the {@code warden.*}
 * properties were applied: define beans of this type for settings that properties cannot carry (a listener, a
 * scheduler). Applied in their {@link org.springframework.core.annotation.Order}.
 */
@FunctionalInterface
public interface LockConfigCustomizer {
    /**
     * @param builder the configuration being built; a customizer sets what it needs
     */
    void customize(LockConfig.Builder builder);
}
