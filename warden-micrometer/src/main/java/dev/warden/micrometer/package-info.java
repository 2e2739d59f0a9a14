/**
 * Micrometer metrics for Warden: {@link dev.warden.micrometer.WardenMetrics} is a {@link dev.warden.LockListener}
 * that records wait and hold times, outcomes, lost leases, errors, renewals, leases held and waiters.
 */
package dev.warden.micrometer;
