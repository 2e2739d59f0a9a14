/**
 * Warden in Spring Boot: the auto-configured {@link dev.warden.LockClient} ({@link
 * dev.warden.spring.WardenProperties}), {@link dev.warden.spring.Locked} methods with {@link
 * dev.warden.spring.CurrentLease}, Micrometer metrics and observations when Micrometer is present, and Spring
 * Integration's leader election ({@code warden.leadership.role}) when {@code warden-spring-integration} is.
 */
package dev.warden.spring;
