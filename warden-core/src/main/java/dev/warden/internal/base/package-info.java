/**
 * Not API: part of Warden's engine, not exported by {@code module-info.java}; any of it may change in any release.
 * Use the package {@code dev.warden}.
 *
 * <p>Small parts every layer uses and that know nothing of Redis's requests: argument checks ({@code Require}),
 * futures ({@code Futures}, {@code DueFuture}), how failures reach callers ({@code Errors},
 * {@code UnexpectedReplyException}), the listener's events ({@code Events}), the client's callback threads
 * ({@code CallbackPool}, {@code DaemonThreads}), how a blocking call waits ({@code Await}, {@code Spinner}), the
 * command timeouts' queue ({@code SweepQueue}) and the acquisitions that closing fails ({@code Pending}).
 *
 * <p>Layers, lowest first; a package depends only on those below it (checked by {@code LayersTest}; the picture is
 * in {@code docs/design.md}, "Layout"): {@code base}, {@code wire}, {@code script}, {@code wait}, {@code inspect},
 * {@code lease}, then {@code lock} and {@code share} side by side, {@code multi}, {@code quorum}, {@code lead},
 * {@code client}.
 */
package dev.warden.internal.base;
