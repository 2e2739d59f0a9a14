/**
 * ShedLock on Warden: {@link dev.warden.shedlock.WardenLockProvider} runs {@code @SchedulerLock} jobs on Warden's
 * locks, with {@code lockAtMostFor} as a fixed lease and {@code lockAtLeastFor} kept in Redis.
 */
package dev.warden.shedlock;
