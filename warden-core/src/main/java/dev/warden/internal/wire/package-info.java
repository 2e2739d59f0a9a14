/**
 * Not API: part of Warden's engine, not exported by {@code module-info.java}; any of it may change in any release.
 * Use the package {@code dev.warden}.
 *
 * <p>The connections to one deployment and the requests on them: connecting ({@code Server}, {@code RedisUris},
 * {@code RedisVersion}), a server or a cluster as one {@code Link} ({@code StandaloneLink}, {@code ClusterLink}),
 * the client's Lettuce threads ({@code SharedResources}, {@code CommandTimer}, {@code FlushBatcher}), the requests
 * in flight where every reply's callback is attached ({@code InFlight}), and replica acknowledgements
 * ({@code Replicas}, {@code Acked}). It knows keys, tokens and durations; not locks, leases or waiters.
 *
 * <p>Layers, lowest first; a package depends only on those below it (checked by {@code LayersTest}; the picture is
 * in {@code docs/design.md}, "Layout"): {@code base}, {@code wire}, {@code script}, {@code wait}, {@code inspect},
 * {@code lease}, then {@code lock} and {@code share} side by side, {@code multi}, {@code quorum}, {@code lead},
 * {@code client}.
 */
package dev.warden.internal.wire;
