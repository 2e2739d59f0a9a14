/**
 * Spring Integration on Warden: {@link dev.warden.integration.WardenLockRegistry} is a lock registry (expirable and
 * renewable) to use where {@code RedisLockRegistry} was.
 */
package dev.warden.integration;
