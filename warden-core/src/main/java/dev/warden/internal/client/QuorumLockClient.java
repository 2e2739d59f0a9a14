package dev.warden.internal.client;

import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.DistributedSemaphore;
import dev.warden.LockConfig;
import dev.warden.LockConnectionException;
import dev.warden.LockException;
import dev.warden.LockInfo;
import dev.warden.internal.base.Await;
import dev.warden.internal.base.Pending;
import dev.warden.internal.inspect.Inspector;
import dev.warden.internal.inspect.LockListing;
import dev.warden.internal.inspect.NamePattern;
import dev.warden.internal.lease.ThreadHolds;
import dev.warden.internal.lease.Watchdog;
import dev.warden.internal.quorum.Quorum;
import dev.warden.internal.quorum.QuorumAcquisition;
import dev.warden.internal.quorum.QuorumContext;
import dev.warden.internal.quorum.QuorumLock;
import dev.warden.internal.quorum.QuorumNode;
import dev.warden.internal.quorum.QuorumRenewals;
import dev.warden.internal.script.ShareScripts;
import dev.warden.internal.script.Tokens;
import dev.warden.internal.wait.Deployment;
import dev.warden.internal.wire.InFlight;
import dev.warden.internal.wire.SharedResources;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

/**
 * A quorum client over independent Redis masters (the Redlock algorithm): one {@link QuorumNode} per server, all
 * on one set of {@link SharedResources} threads, and one {@link Watchdog} whose renewals go to every server in one
 * request per batch. A lock is granted when a majority of servers grant it within the lease's validity.
 */
final class QuorumLockClient extends LockClientBase {
    private final SharedResources shared;
    private final Quorum quorum;
    private final InFlight inFlight = new InFlight();
    private final QuorumContext locks;
    /** Set once by {@link #close()}; new locks are refused from then on. Written under this. */
    private volatile boolean closed;

    private QuorumLockClient(LockConfig config, SharedResources shared, List<QuorumNode> nodes, Tokens tokens) {
        super(config);
        this.shared = shared;
        this.quorum = new Quorum(nodes);
        this.locks = new QuorumContext(config, quorum, inFlight,
                new Watchdog<>(shared.scheduler(), config.ticker(), inFlight, shared.events(),
                        new QuorumRenewals(quorum)),
                new ThreadHolds(), new Pending<>(), tokens::next, new Await(config, 0), shared.scheduler(),
                shared.callbacks(), shared.events());
    }

    /**
     * Connects to every server of the quorum; a server that cannot be reached now is connected later.
     *
     * @throws LockConnectionException if fewer than a majority can be reached; nothing is left running
     */
    static QuorumLockClient connect(LockConfig config) {
        SharedResources shared = SharedResources.create(config);
        Tokens tokens = new Tokens();
        String instanceId = tokens.clientId();
        List<QuorumNode> nodes = new ArrayList<>();
        int connected = 0;
        LockException failure = null;
        for (String uri : config.redisUris()) {
            QuorumNode node = new QuorumNode(config.toBuilder().redisUri(uri).build(), shared, instanceId);
            node.connectNow();
            nodes.add(node);
            if (node.connected() != null) {
                connected++;
            } else {
                try {
                    node.server();
                } catch (LockException e) {
                    failure = e;
                }
            }
        }
        int majority = nodes.size() / 2 + 1;
        if (connected < majority) {
            // A server that is down now is connected later; but without a majority no lock can be granted.
            LockConnectionException e = new LockConnectionException("connect to quorum " + config.redisUriForDisplay()
                    + ": reached " + connected + " of " + nodes.size() + " servers, fewer than a majority of "
                    + majority, failure);
            try {
                nodes.forEach(QuorumNode::close);
                shared.close();
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        return new QuorumLockClient(config, shared, nodes, tokens);
    }

    @Override
    public DistributedLock lock(String name) {
        requireOpen(name, closed);
        return new QuorumLock(locks, name);
    }

    /** @throws UnsupportedOperationException always: a quorum's servers hold no shared locks yet */
    @Override
    public DistributedReadWriteLock readWriteLock(String name) {
        throw new UnsupportedOperationException("read-write locks are not supported on a quorum");
    }

    /** @throws UnsupportedOperationException always: a quorum's servers hold no shared locks yet */
    @Override
    public DistributedSemaphore semaphore(String name, int permits) {
        throw new UnsupportedOperationException("semaphores are not supported on a quorum");
    }

    @Override
    long listingStallNanos() {
        return locks.await().nanos();
    }

    /**
     * Lists the locks that a majority of the servers show held, or that have waiters: the names are the union of
     * every server's keys, and each lock some server shows held or waited for is read from all of them as
     * {@link DistributedLock#inspect()} reads it. Up to as many servers as a majority can do without may fail. A
     * quorum has no shared locks: a listing of read-write locks or semaphores reads nothing and finds none.
     */
    @Override
    @SuppressWarnings("unchecked")
    <T> LockListing<T> listing(LockListing.Kind<T> kind, NamePattern glob, int limit) {
        String prefix = config.keyPrefix();
        if (kind != LockListing.LOCKS) {
            return LockListing.start(kind, prefix, glob, limit, 0, inFlight, List.of(), null);
        }
        return (LockListing<T>) locksListing(prefix, glob, limit);
    }

    private LockListing<LockInfo> locksListing(String prefix, NamePattern glob, int limit) {
        List<LockListing.Source<LockInfo>> sources = new ArrayList<>(quorum.nodes().size());
        for (QuorumNode node : quorum.nodes()) {
            try {
                Deployment deployment = node.server();
                Inspector inspector = new Inspector(deployment.scripts(), new ShareScripts(deployment.scripts()),
                        prefix, inFlight);
                sources.add(new LockListing.Source<>(deployment.masters(), inspector.reader(LockListing.LOCKS)));
            } catch (LockException e) {
                // Not connected now (a reconnection is under way): a failed source, which a majority may do without.
                sources.add(new LockListing.Source<>(CompletableFuture.failedFuture(e),
                        name -> CompletableFuture.failedFuture(e)));
            }
        }
        return LockListing.start(LockListing.LOCKS, prefix, glob, limit, quorum.nodes().size() - quorum.majority(),
                inFlight, sources,
                name -> new QuorumLock(locks, name).read());
    }

    /** As {@link RedisLockClient#close()}, on every server: see {@link Closing}. Idempotent. */
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
        Closing.close(inFlight, locks.await().nanos(), () -> {
            for (QuorumAcquisition acquisition : locks.pending().all()) {
                acquisition.result.completeExceptionally(new LockException("client closed while acquiring"));
            }
        }, locks.watchdog()::leases, () -> {
            locks.watchdog().close();
            quorum.nodes().forEach(QuorumNode::close);
            shared.close();
        });
    }

    /** The requests in flight, which {@link #close()} waits for: each fan-out counts as one. */
    @Override
    InFlight inFlight() {
        return inFlight;
    }

    @Override
    ExecutorService callbackExecutor() {
        return shared.callbackExecutor();
    }
}
