/**
 * Not API: part of Warden's engine, not exported by {@code module-info.java}; any of it may change in any release.
 * Use the package {@code dev.warden}.
 *
 * <p>The contract with the Lua scripts: each script loaded once with its preludes ({@code Script}), sent with typed
 * arguments ({@code Scripts} for single locks, {@code ShareScripts} for shared ones, {@code Renewal} for a lease in
 * a renewal), and each reply decoded once into a typed value ({@code Replies}); the keys of a lock
 * ({@code LockKeys}, {@code ShareKeys}), tokens and their origins ({@code Tokens}), and the identity records' codec
 * ({@code IdentityCodec}). The Lua itself is beside it, in the resources of this package.
 *
 * <p>Layers, lowest first; a package depends only on those below it (checked by {@code LayersTest}; the picture is
 * in {@code docs/design.md}, "Layout"): {@code base}, {@code wire}, {@code script}, {@code wait}, {@code inspect},
 * {@code lease}, then {@code lock} and {@code share} side by side, {@code multi}, {@code quorum}, {@code lead},
 * {@code client}.
 */
package dev.warden.internal.script;
