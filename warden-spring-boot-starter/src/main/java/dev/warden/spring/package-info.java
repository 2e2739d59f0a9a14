/**
 * Warden in Spring Boot: the auto-configured {@link dev.warden.LockClient} ({@link
 * dev.warden.spring.WardenProperties}), {@link dev.warden.spring.Locked} methods with {@link
 * dev.warden.spring.CurrentLease}, and Micrometer metrics and observations when Micrometer is present.
 */
package dev.warden.spring;
