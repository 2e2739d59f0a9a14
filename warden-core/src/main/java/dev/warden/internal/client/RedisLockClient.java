package dev.warden.internal.client;

import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.DistributedSemaphore;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockException;
import dev.warden.internal.base.Await;
import dev.warden.internal.base.Pending;
import dev.warden.internal.base.Require;
import dev.warden.internal.inspect.IdentityRecord;
import dev.warden.internal.inspect.Inspector;
import dev.warden.internal.inspect.LockListing;
import dev.warden.internal.inspect.NamePattern;
import dev.warden.internal.lease.LeaseBase;
import dev.warden.internal.lease.ThreadHolds;
import dev.warden.internal.lease.Watchdog;
import dev.warden.internal.lock.Acquisition;
import dev.warden.internal.lock.LockContext;
import dev.warden.internal.lock.RedisLock;
import dev.warden.internal.lock.RedisRenewals;
import dev.warden.internal.script.Scripts;
import dev.warden.internal.script.ShareScripts;
import dev.warden.internal.script.Tokens;
import dev.warden.internal.share.RedisReadWriteLock;
import dev.warden.internal.share.RedisSemaphore;
import dev.warden.internal.share.ShareAcquisition;
import dev.warden.internal.share.ShareContext;
import dev.warden.internal.share.ShareRenewals;
import dev.warden.internal.share.ShareWaiters;
import dev.warden.internal.share.ThreadShares;
import dev.warden.internal.wait.Deployment;
import dev.warden.internal.wait.Notifier;
import dev.warden.internal.wait.QuietRefresh;
import dev.warden.internal.wire.InFlight;
import dev.warden.internal.wire.Replicas;
import dev.warden.internal.wire.SharedResources;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client of one Redis deployment (a server, a Sentinel-managed master, or a cluster): builds the
 * {@link LockContext} of its single locks and the {@link ShareContext} of its shared ones, hands them to each lock it
 * makes, and closes what it built. Internal; use {@link LockClient#create(LockConfig)}.
 */
public final class RedisLockClient extends LockClientBase {
    private static final Logger LOG = LoggerFactory.getLogger(RedisLockClient.class);

    private final SharedResources shared;
    private final Deployment deployment;
    private final IdentityRecord identity;
    private final InFlight inFlight = new InFlight();
    private final Inspector inspector;
    private final Await await;
    private final LockContext locks;
    private final ShareContext shares;
    /** Set once by {@link #close()}; new locks are refused from then on. Guarded by this. */
    private volatile boolean closed;

    private RedisLockClient(LockConfig config, SharedResources shared, Deployment deployment, Tokens tokens) {
        super(config);
        this.shared = shared;
        this.deployment = deployment;
        Scripts scripts = deployment.scripts();
        this.identity = new IdentityRecord(scripts, shared.scheduler(), config.keyPrefix(), tokens.tag(),
                config.clientName());
        ShareScripts shareScripts = new ShareScripts(scripts);
        this.inspector = new Inspector(scripts, shareScripts, config.keyPrefix(), inFlight);
        this.await = new Await(config);
        Supplier<String> newToken = () -> {
            identity.asking();
            return tokens.next();
        };
        Notifier notifier = deployment.notifier();
        String instanceId = deployment.instanceId();
        this.locks = new LockContext(config, scripts, notifier, instanceId, deployment.cluster(), inFlight,
                new Watchdog<>(shared.scheduler(), config.ticker(), inFlight, shared.events(),
                        new RedisRenewals(scripts, deployment.cluster())),
                new QuietRefresh(notifier, scripts, inFlight, config.ticker(), instanceId), new ThreadHolds(),
                new Pending<>(), newToken, inspector, await, shared.scheduler(), shared.callbacks(), shared.events());
        this.shares = new ShareContext(config, shareScripts, notifier, instanceId, inFlight,
                new Watchdog<>(shared.scheduler(), config.ticker(), inFlight, shared.events(),
                        new ShareRenewals(shareScripts, deployment.cluster())),
                new ThreadShares(), new ShareWaiters(), new Pending<>(), newToken, inspector, await,
                shared.scheduler(), shared.callbacks(), shared.events());
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
            return new RedisLockClient(config, shared, Deployment.connect(config, shared, tokens.clientId()), tokens);
        } catch (RuntimeException e) {
            try {
                shared.close();
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    @Override
    public DistributedLock lock(String name) {
        requireOpen(name, closed);
        return new RedisLock(locks, name, Replicas.of(config.replicaAcks(), config.replicaAckTimeout()));
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name) {
        requireOpen(name, closed);
        return new RedisReadWriteLock(shares, name);
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits) {
        Require.lockName(name, MAX_NAME_LENGTH);
        Require.argument(permits >= 1 && permits <= MAX_PERMITS, "permits must be between 1 and %d: %d",
                MAX_PERMITS, permits);
        requireOpen(name, closed);
        return new RedisSemaphore(shares, name, permits);
    }

    @Override
    long listingStallNanos() {
        return await.nanos();
    }

    /** Lists from the deployment's masters, each lock read as its kind's inspect does, identities read once. */
    @Override
    <T> LockListing<T> listing(LockListing.Kind<T> kind, NamePattern glob, int limit) {
        return LockListing.start(kind, config.keyPrefix(), glob, limit, 0, inFlight,
                List.of(new LockListing.Source<>(deployment.masters(), inspector.reader(kind))), null);
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
        closeCandidates();
        locks.pending().close();
        shares.pending().close();
        identity.close();
        Closing.close(inFlight, await.nanos(), () -> {
            for (Acquisition acquisition : locks.pending().all()) {
                acquisition.result.completeExceptionally(new LockException("client closed while acquiring"));
            }
            for (ShareAcquisition acquisition : shares.pending().all()) {
                acquisition.result.completeExceptionally(new LockException("client closed while acquiring"));
            }
        }, () -> {
            List<LeaseBase> leases = new ArrayList<>(locks.watchdog().leases());
            leases.addAll(shares.watchdog().leases());
            return leases;
        }, () -> {
            locks.watchdog().close();
            shares.watchdog().close();
            deleteIdentity();
            deployment.close();
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

    @Override
    public InFlight inFlight() {
        return inFlight;
    }

    @Override
    ExecutorService callbackExecutor() {
        return shared.callbackExecutor();
    }
}
