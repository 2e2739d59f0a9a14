/**
 * Warden's engine: not API. Nothing here is exported by {@code module-info.java}, and any of it may change in any
 * release; use the package {@code dev.warden}.
 *
 * <p>What lives here, by concern (the words are defined in {@code docs/design.md}, section "Glossary"):
 * <ul>
 *   <li>the client of one Redis deployment and its resources: {@link dev.warden.internal.RedisLockClient}, its
 *       {@link dev.warden.internal.Link} ({@code StandaloneLink}, {@code ClusterLink}), {@code CommandTimer},
 *       {@code FlushBatcher}, {@code CallbackPool};</li>
 *   <li>the contract with the Lua scripts: {@link dev.warden.internal.Scripts} sends each script and
 *       {@link dev.warden.internal.Replies} decodes each reply once into a typed value;
 *       {@link dev.warden.internal.InFlight} counts the requests in flight and is where callbacks are attached to
 *       replies;</li>
 *   <li>one acquire ({@link dev.warden.internal.Acquisition}), the pub/sub side that wakes and grants waiters
 *       ({@link dev.warden.internal.Notifier}), a held lease ({@link dev.warden.internal.LeaseBase},
 *       {@link dev.warden.internal.RedisLease}) and the {@link dev.warden.internal.Watchdog} that renews leases in
 *       batches;</li>
 *   <li>quorum mode ({@code Quorum*}, {@code Fanout}): it builds on the single-server client's package-private
 *       methods (scripts, notifier, ticker), so it stays in this package for now.</li>
 * </ul>
 */
package dev.warden.internal;
