/**
 * Not API: part of Warden's engine, not exported by {@code module-info.java}; any of it may change in any release.
 * Use the package {@code dev.warden}.
 *
 * <p>The single lock of one deployment: the lock ({@code RedisLock}), one acquisition with its state model
 * ({@code Acquisition}), a held lease with its local and fair handovers ({@code RedisLease}), its renewals
 * ({@code RedisRenewals}), and what it works with ({@code LockContext}).
 *
 * <p>Layers, lowest first; a package depends only on those below it (checked by {@code LayersTest}; the picture is
 * in {@code docs/design.md}, "Layout"): {@code base}, {@code wire}, {@code script}, {@code wait}, {@code inspect},
 * {@code lease}, then {@code lock} and {@code share} side by side, {@code multi}, {@code quorum}, {@code lead},
 * {@code client}.
 */
package dev.warden.internal.lock;
