/**
 * Not API: part of Warden's engine, not exported by {@code module-info.java}; any of it may change in any release.
 * Use the package {@code dev.warden}.
 *
 * <p>Quorum mode, the Redlock algorithm over independent masters: the servers and their majority ({@code Quorum},
 * {@code QuorumNode}), requests to all of them at once ({@code Fanout}), the lock, its acquisitions, leases and
 * renewals ({@code QuorumLock}, {@code QuorumAcquisition}, {@code QuorumLease}, {@code QuorumRenewals}), and what
 * they work with ({@code QuorumContext}).
 *
 * <p>Layers, lowest first; a package depends only on those below it (checked by {@code LayersTest}; the picture is
 * in {@code docs/design.md}, "Layout"): {@code base}, {@code wire}, {@code script}, {@code wait}, {@code inspect},
 * {@code lease}, then {@code lock} and {@code share} side by side, {@code multi}, {@code quorum}, {@code lead},
 * {@code client}.
 */
package dev.warden.internal.quorum;
