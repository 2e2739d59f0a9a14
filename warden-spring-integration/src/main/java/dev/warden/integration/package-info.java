/**
 * Spring Integration on Warden: {@link dev.warden.integration.WardenLockRegistry} is a lock registry (expirable and
 * renewable) to use where {@code RedisLockRegistry} was; {@link dev.warden.integration.WardenLeaderInitiator} is
 * Spring Integration's leader election ({@code OnGrantedEvent}, {@code OnRevokedEvent}) on a Warden
 * {@link dev.warden.Leadership}, with the term's epoch in its {@link dev.warden.integration.WardenLeaderContext}.
 */
package dev.warden.integration;
