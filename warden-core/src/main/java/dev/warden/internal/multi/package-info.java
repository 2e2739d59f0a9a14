/**
 * Not API: part of Warden's engine, not exported by {@code module-info.java}; any of it may change in any release.
 * Use the package {@code dev.warden}.
 *
 * <p>Multi-locks: several single locks taken all or nothing in one script ({@code MultiLock},
 * {@code MultiAcquisition}, {@code RedisMultiLease}) and their typed view ({@code TypedMultiLock}).
 *
 * <p>Layers, lowest first; a package depends only on those below it (checked by {@code LayersTest}; the picture is
 * in {@code docs/design.md}, "Layout"): {@code base}, {@code wire}, {@code script}, {@code wait}, {@code inspect},
 * {@code lease}, then {@code lock} and {@code share} side by side, {@code multi}, {@code quorum}, {@code lead},
 * {@code client}.
 */
package dev.warden.internal.multi;
