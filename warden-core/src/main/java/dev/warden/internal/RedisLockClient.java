package dev.warden.internal;

import dev.warden.IllegalLockStateException;
import dev.warden.DistributedLock;
import dev.warden.DistributedMultiLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.DistributedSemaphore;
import dev.warden.Identity;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockException;
import dev.warden.LockInfo;
import dev.warden.LockTimeoutException;
import dev.warden.Ticker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client of one Redis deployment (a server, a Sentinel-managed master, or a cluster): its {@link Server}
 * connections, the {@link Watchdog} of its leases, and its {@link SharedResources} threads. Internal; use
 * {@link LockClient#create(LockConfig)}.
 */
final class RedisLockClient extends LockClientBase {
    private static final Logger LOG = LoggerFactory.getLogger(RedisLockClient.class);

    private final LockConfig config;
    private final SharedResources shared;
    private final Server server;
    private final Watchdog<RedisLease> watchdog;
    private final ShareScripts shareScripts;
    /** The watchdog of shares (semaphore permits, read and write leases), on the same scheduler. */
    private final Watchdog<ShareLease> shareWatchdog;
    private final ThreadShares threadShares = new ThreadShares();
    private final ThreadHolds threadHolds = new ThreadHolds();
    private final ShareWaiters shareWaiters = new ShareWaiters();
    private final Tokens tokens;
    private final IdentityRecord identity;
    private final Set<Acquisition> pending = ConcurrentHashMap.newKeySet();
    private final Set<ShareAcquisition> pendingShares = ConcurrentHashMap.newKeySet();
    private final InFlight inFlight = new InFlight();
    private final QuietRefresh quietRefresh = new QuietRefresh(this);
    private final long awaitNanos;
    private final Spinner spinner;
    private volatile boolean closed;

    private RedisLockClient(LockConfig config, SharedResources shared, Server server, Tokens tokens) {
        this.config = config;
        this.shared = shared;
        this.server = server;
        this.tokens = tokens;
        this.identity = new IdentityRecord(server.scripts(), shared.scheduler(), config.keyPrefix(), tokens.tag(),
                config.clientName());
        this.watchdog = new Watchdog<>(shared.scheduler(), config.ticker(), inFlight, shared.events(),
                new RedisRenewals(server.scripts(), server.cluster()));
        this.shareScripts = new ShareScripts(server.scripts());
        this.shareWatchdog = new Watchdog<>(shared.scheduler(), config.ticker(), inFlight, shared.events(),
                new ShareRenewals(shareScripts, server.cluster()));
        this.awaitNanos = awaitNanos(config);
        this.spinner = new Spinner(config.spinWait().toNanos());
    }

    /**
     * Connects to one server, a Sentinel-managed master, or a cluster.
     *
     * @throws LockException if Redis cannot be reached or refuses the connection; nothing is left running
     */
    static RedisLockClient connect(LockConfig config) {
        SharedResources shared = SharedResources.create(config);
        Tokens tokens = new Tokens();
        try {
            return new RedisLockClient(config, shared, Server.connect(config, shared, tokens.clientId()), tokens);
        } catch (RuntimeException e) {
            try {
                shared.close();
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /**
     * How long to wait for a future that a command's reply completes: Lettuce's own timeout fires first; this
     * bound only guards against a future that never completes.
     */
    static long awaitNanos(LockConfig config) {
        return config.commandTimeout().toNanos() * 2 + TimeUnit.SECONDS.toNanos(1);
    }

    @Override
    public DistributedLock lock(String name) {
        Require.lockName(name, MAX_NAME_LENGTH);
        if (closed) {
            throw new IllegalStateException("client is closed");
        }
        return new RedisLock(this, name, Replicas.of(config.replicaAcks(), config.replicaAckTimeout()));
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name) {
        Require.lockName(name, MAX_NAME_LENGTH);
        if (closed) {
            throw new IllegalStateException("client is closed");
        }
        return new RedisReadWriteLock(this, name);
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits) {
        Require.lockName(name, MAX_NAME_LENGTH);
        Require.argument(permits >= 1 && permits <= MAX_PERMITS, "permits must be between 1 and %d: %d",
                MAX_PERMITS, permits);
        if (closed) {
            throw new IllegalStateException("client is closed");
        }
        return new RedisSemaphore(this, name, permits);
    }

    @Override
    public DistributedMultiLock multiLock(Collection<String> names) {
        return new TypedMultiLock(MultiLock.of(this, names));
    }

    @Override
    public LockConfig config() {
        return config;
    }

    @Override
    long listingStallNanos() {
        return awaitNanos;
    }

    /**
     * Lists from the deployment's masters, each lock read as its kind's inspect does ({@link #inspect},
     * {@link #inspectShare}), each client's identity record read once for the listing.
     */
    @Override
    <T> LockListing<T> listing(LockListing.Kind<T> kind, NamePattern glob, int limit) {
        return LockListing.start(kind, config.keyPrefix(), glob, limit, 0, inFlight,
                List.of(server.listingSource(reader(kind, identityReader()))), null);
    }

    /** @return how a listing of {@code kind} reads one lock, not counted in flight (the listing counts) */
    @SuppressWarnings("unchecked")
    private <T> Function<String, CompletableFuture<T>> reader(LockListing.Kind<T> kind, IdentityReader identities) {
        String prefix = config.keyPrefix();
        Function<String, CompletableFuture<?>> read;
        if (kind == LockListing.LOCKS) {
            read = name -> server.inspect(name, LockKeys.of(prefix, name), identities);
        } else if (kind == LockListing.READ_WRITE_LOCKS) {
            read = name -> readShare(ShareKeys.of(prefix, name, ShareKeys.Kind.READ_WRITE), identities,
                    (state, named) -> state.readWrite(name, named));
        } else {
            read = name -> readShare(ShareKeys.of(prefix, name, ShareKeys.Kind.SEMAPHORE), identities,
                    (state, named) -> state.semaphore(name, named));
        }
        return name -> (CompletableFuture<T>) read.apply(name);
    }

    /**
     * Reads a shared lock's state, counted in flight: the inspections of {@link ShareLock}.
     *
     * @param build makes the caller's view of the state from it and the identities of its holders and waiters
     */
    <T> CompletableFuture<T> inspectShare(ShareKeys keys, IdentityReader identities,
                                          BiFunction<Replies.ShareState, Map<Tokens.Origin, Identity>, T> build) {
        return inFlight.track(InFlight.Kind.WORK, () -> readShare(keys, identities, build));
    }

    private <T> CompletableFuture<T> readShare(ShareKeys keys, IdentityReader identities,
                                               BiFunction<Replies.ShareState, Map<Tokens.Origin, Identity>, T> build) {
        return shareScripts.inspect(keys).thenCompose(state -> identities.named(state.origins(),
                named -> build.apply(state, named)));
    }

    /** @return a reader of identity records for one inspection or listing: each client's record read once */
    IdentityReader identityReader() {
        return new IdentityReader(server.scripts(), config.keyPrefix());
    }

    /** Reads one lock's state, counted in flight: {@link DistributedLock#inspect()}. */
    CompletableFuture<LockInfo> inspect(String name, LockKeys keys) {
        return inFlight.track(InFlight.Kind.WORK,
                () -> server.inspect(name, keys, identityReader()));
    }

    /**
     * Closes the client, leaving no lock of its own held: pending acquisitions fail at once; the requests in flight
     * are waited for (a grant they bring is released); every lease still held is released; then the connections
     * close. New work is refused from the start. Locks it could not release are named in a warning; they expire at
     * the end of their leases. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        identity.close();
        Closing.close(inFlight, awaitNanos, () -> {
            for (Acquisition acquisition : new ArrayList<>(pending)) {
                acquisition.result.completeExceptionally(new LockException("client closed while acquiring"));
            }
            for (ShareAcquisition acquisition : new ArrayList<>(pendingShares)) {
                acquisition.result.completeExceptionally(new LockException("client closed while acquiring"));
            }
        }, () -> {
            List<LeaseBase> leases = new ArrayList<>(watchdog.leases());
            leases.addAll(shareWatchdog.leases());
            return leases;
        }, () -> {
            watchdog.close();
            shareWatchdog.close();
            deleteIdentity();
            server.close();
            shared.close();
        });
    }

    /**
     * Deletes the client's identity record, waiting at most the command timeout or 1 s, whichever is shorter, so
     * that closing a client cut off from Redis is not held up by it: a record that could not be deleted is named in
     * a warning and expires on its own.
     */
    private void deleteIdentity() {
        try {
            identity.delete().get(Math.min(config.commandTimeout().toNanos(), TimeUnit.SECONDS.toNanos(1)),
                    TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("interrupted while deleting this client's identity record; it expires on its own");
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("could not delete this client's identity record; it expires on its own within {} s: {}",
                    IdentityRecord.LIFE_MILLIS / 1000, e.getCause() != null ? e.getCause() : e);
        }
    }

    /** The requests in flight, which {@link #close()} waits for; every request's callback is attached there. */
    @Override
    InFlight inFlight() {
        return inFlight;
    }

    Events events() {
        return shared.events();
    }

    Ticker ticker() {
        return config.ticker();
    }

    /** @return whether this client talks to a cluster, where replica acknowledgements are not available */
    boolean cluster() {
        return server.cluster();
    }

    Scripts scripts() {
        return server.scripts();
    }

    Notifier notifier() {
        return server.notifier();
    }

    /** The batched tries of this client's quiet waiters when their holder's TTL runs out. */
    QuietRefresh quietRefresh() {
        return quietRefresh;
    }

    Watchdog<RedisLease> watchdog() {
        return watchdog;
    }

    ShareScripts shareScripts() {
        return shareScripts;
    }

    Watchdog<ShareLease> shareWatchdog() {
        return shareWatchdog;
    }

    ThreadHolds threadHolds() {
        return threadHolds;
    }

    ThreadShares threadShares() {
        return threadShares;
    }

    /** This client's waiting acquisitions of shared locks, for local handovers. */
    ShareWaiters shareWaiters() {
        return shareWaiters;
    }

    ScheduledExecutorService scheduler() {
        return shared.scheduler();
    }

    @Override
    ExecutorService callbackExecutor() {
        return shared.callbackExecutor();
    }

    /**
     * Draws the token of a new acquisition, marked with this client's tag and the calling thread's id; the client's
     * identity record names the thread ({@link IdentityRecord}).
     */
    String newToken() {
        identity.asking();
        return tokens.next();
    }

    /** A random id of this client, sent as the wake-up message of its releases. */
    String instanceId() {
        return server.instanceId();
    }

    void track(Acquisition acquisition) {
        pending.add(acquisition);
        if (closed) {
            acquisition.result.completeExceptionally(new IllegalLockStateException("client is closed"));
        }
    }

    void untrack(Acquisition acquisition) {
        pending.remove(acquisition);
    }

    void track(ShareAcquisition acquisition) {
        pendingShares.add(acquisition);
        if (closed) {
            acquisition.result.completeExceptionally(new IllegalLockStateException("client is closed"));
        }
    }

    void untrack(ShareAcquisition acquisition) {
        pendingShares.remove(acquisition);
    }

    /** Runs a user callback on the callback pool; its failure is logged, since it has no caller to reach. */
    void runCallback(Runnable callback) {
        shared.runCallback(callback);
    }

    /**
     * Waits for the answer of a single Redis operation, translating failures; spins for it first while the
     * {@link Spinner} allows. The wait is bounded by the command timeout, so it finishes even when the thread is
     * interrupted (a release in a {@code finally} block of an interrupted thread must still release); the
     * interrupt flag is set again afterwards.
     */
    <T> T await(CompletableFuture<T> future, String what) {
        if (future.isDone()) {
            return await(future, what, config, awaitNanos);
        }
        long since = System.nanoTime();
        spinner.enter();
        try {
            spinner.spin(future, since, () -> true);
            return await(future, what, config, awaitNanos);
        } finally {
            spinner.exit();
        }
    }

    Spinner spinner() {
        return spinner;
    }

    /**
     * Waits for a future bounded by {@code awaitNanos}, finishing even when the thread is interrupted (the flag is
     * set again afterwards), and translates failures.
     */
    static <T> T await(CompletableFuture<T> future, String what, LockConfig config, long awaitNanos) {
        boolean interrupted = false;
        long end = config.ticker().read() + awaitNanos;
        try {
            while (true) {
                try {
                    return future.get(Math.max(0, end - config.ticker().read()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw Errors.forCaller(e.getCause(), what);
                } catch (TimeoutException e) {
                    throw new LockTimeoutException(what + ": no answer within " + config.commandTimeout(), e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
