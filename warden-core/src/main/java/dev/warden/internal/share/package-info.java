/**
 * Not API: part of Warden's engine, not exported by {@code module-info.java}; any of it may change in any release.
 * Use the package {@code dev.warden}.
 *
 * <p>Shared locks of one deployment, read-write locks and semaphores, as one shared lock with a capacity
 * ({@code ShareLock}): its acquisitions ({@code ShareAcquisition}), leases ({@code ShareLease}) and renewals
 * ({@code ShareRenewals}), the views that are the read lock, the write lock and each request size of permits
 * ({@code ShareView}, {@code RedisReadWriteLock}, {@code RedisSemaphore}), local handovers ({@code ShareWaiters}),
 * which thread holds which share ({@code ThreadShares}), and what they work with ({@code ShareContext}).
 *
 * <p>Layers, lowest first; a package depends only on those below it (checked by {@code LayersTest}; the picture is
 * in {@code docs/design.md}, "Layout"): {@code base}, {@code wire}, {@code script}, {@code wait}, {@code inspect},
 * {@code lease}, then {@code lock} and {@code share} side by side, {@code multi}, {@code quorum}, {@code lead},
 * {@code client}.
 */
package dev.warden.internal.share;
