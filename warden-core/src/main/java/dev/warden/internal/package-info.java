/**
 * Warden's engine: not API. Nothing here is exported by {@code module-info.java}, and any of it may change in any
 * release; use the package {@code dev.warden}.
 *
 * <p>What lives here, by concern (the words are defined in {@code docs/design.md}, section "Glossary"):
 * <ul>
 *   <li>making a client ({@link dev.warden.internal.Clients}, for {@code LockClient.create}) and what every client
 *       has: its threads ({@code SharedResources}: Lettuce's, {@code CommandTimer}, the scheduler,
 *       {@code CallbackPool}), its connections to a deployment ({@link dev.warden.internal.Server}: a
 *       {@link dev.warden.internal.Link}, {@code StandaloneLink} or {@code ClusterLink}, with {@code FlushBatcher}),
 *       and how it closes ({@code Closing}); the client of one deployment is
 *       {@link dev.warden.internal.RedisLockClient};</li>
 *   <li>the contract with the Lua scripts: {@link dev.warden.internal.Scripts} sends each script and
 *       {@link dev.warden.internal.Replies} decodes each reply once into a typed value;
 *       {@link dev.warden.internal.InFlight} counts the requests in flight and is where callbacks are attached to
 *       replies;</li>
 *   <li>one acquire ({@link dev.warden.internal.Acquisition}), the pub/sub side that wakes and grants waiters
 *       ({@link dev.warden.internal.Notifier}), a held lease ({@link dev.warden.internal.LeaseBase},
 *       {@link dev.warden.internal.RedisLease}) and the {@link dev.warden.internal.Watchdog} that renews leases in
 *       batches;</li>
 *   <li>quorum mode ({@code QuorumLockClient}, {@code QuorumNode}, {@code QuorumLock}, {@code QuorumAcquisition},
 *       {@code QuorumLease}, {@code QuorumRenewals}, {@code Fanout}). The single-server classes do not depend on
 *       it. It stays in this package rather than one of its own because it builds on package-private parts that are
 *       the engine's own contract: {@code LeaseBase}'s life and renewal schedule (moved only by the
 *       {@code Watchdog}), {@code Scripts} and {@code Replies}, {@code Notifier.Waiter} and {@code InFlight}. A
 *       package of its own would make each of those public, that is, visible to every class of every other
 *       internal package, to save nothing a reader needs: the quorum classes are named as such.</li>
 * </ul>
 */
package dev.warden.internal;
