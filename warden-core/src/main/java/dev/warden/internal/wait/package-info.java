/**
 * Not API: part of Warden's engine, not exported by {@code module-info.java}; any of it may change in any release.
 * Use the package {@code dev.warden}.
 *
 * <p>Waiting without polling: the pub/sub side that wakes this client's waiters and passes grants to them
 * ({@code Notifier}, with the hold-back of waiters for a holder of their own client, {@code HoldBack}), the batched
 * tries of quiet waiters ({@code QuietRefresh}), and a connected deployment as the locks use it: its server, scripts
 * and notifier ({@code Deployment}).
 *
 * <p>Layers, lowest first; a package depends only on those below it (checked by {@code LayersTest}; the picture is
 * in {@code docs/design.md}, "Layout"): {@code base}, {@code wire}, {@code script}, {@code wait}, {@code inspect},
 * {@code lease}, then {@code lock} and {@code share} side by side, {@code multi}, {@code quorum}, {@code lead},
 * {@code client}.
 */
package dev.warden.internal.wait;
