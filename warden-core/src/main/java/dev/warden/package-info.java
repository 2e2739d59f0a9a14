/**
 * Warden's API: distributed locks on Redis with leases, a watchdog, fencing tokens and loud failures.
 *
 * <p>Start with {@link dev.warden.LockClient#create(dev.warden.LockConfig)}; a {@link dev.warden.DistributedLock}
 * hands out {@link dev.warden.Lease}s. "Not acquired" is an empty {@code Optional}; failures are unchecked
 * {@link dev.warden.LockException}s, told apart by type.
 */
package dev.warden;
