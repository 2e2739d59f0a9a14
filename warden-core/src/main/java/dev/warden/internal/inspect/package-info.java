/**
 * Not API: part of Warden's engine, not exported by {@code module-info.java}; any of it may change in any release.
 * Use the package {@code dev.warden}.
 *
 * <p>Reading locks without changing them: {@code inspect()} of each kind ({@code Inspector}), listings across a
 * deployment or a quorum ({@code LockListing}, {@code NamePattern}), and the identity records that name a holder's
 * host, process and thread ({@code IdentityRecord}, {@code IdentityReader}).
 *
 * <p>Layers, lowest first; a package depends only on those below it (checked by {@code LayersTest}; the picture is
 * in {@code docs/design.md}, "Layout"): {@code base}, {@code wire}, {@code script}, {@code wait}, {@code inspect},
 * {@code lease}, then {@code lock} and {@code share} side by side, {@code multi}, {@code quorum}, {@code lead},
 * {@code client}.
 */
package dev.warden.internal.inspect;
