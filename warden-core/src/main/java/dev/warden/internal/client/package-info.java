/**
 * Not API: part of Warden's engine, not exported by {@code module-info.java}; any of it may change in any release.
 * Use the package {@code dev.warden}.
 *
 * <p>The clients, which build what the kinds of lock work with and close it: of one deployment
 * ({@code RedisLockClient}), of a quorum ({@code QuorumLockClient}), what both share ({@code LockClientBase}), how a
 * client closes ({@code Closing}), and making one for {@code LockClient.create} ({@code Clients}).
 *
 * <p>Layers, lowest first; a package depends only on those below it (checked by {@code LayersTest}; the picture is
 * in {@code docs/design.md}, "Layout"): {@code base}, {@code wire}, {@code script}, {@code wait}, {@code inspect},
 * {@code lease}, then {@code lock} and {@code share} side by side, {@code multi}, {@code quorum}, {@code lead},
 * {@code client}.
 */
package dev.warden.internal.client;
