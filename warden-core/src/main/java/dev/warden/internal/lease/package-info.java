/**
 * Not API: part of Warden's engine, not exported by {@code module-info.java}; any of it may change in any release.
 * Use the package {@code dev.warden}.
 *
 * <p>What every kind of lock shares once it is held or asked for: a lease's life, loss and release
 * ({@code LeaseBase}), the renewals in batches ({@code Watchdog}), the acquire methods and the {@code Lock} view in
 * terms of one asynchronous acquisition ({@code LockBase}, {@code LockView}), which thread holds what
 * ({@code ThreadHolds}), and what a kind of lock is given to work with ({@code Context}).
 *
 * <p>Layers, lowest first; a package depends only on those below it (checked by {@code LayersTest}; the picture is
 * in {@code docs/design.md}, "Layout"): {@code base}, {@code wire}, {@code script}, {@code wait}, {@code inspect},
 * {@code lease}, then {@code lock} and {@code share} side by side, {@code multi}, {@code quorum}, {@code lead},
 * {@code client}.
 */
package dev.warden.internal.lease;
