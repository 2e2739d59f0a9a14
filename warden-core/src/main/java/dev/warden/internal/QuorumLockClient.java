package dev.warden.internal;

import dev.warden.DistributedLock;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockConnectionException;
import dev.warden.LockException;
import dev.warden.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A quorum client over independent Redis masters (the Redlock algorithm): one {@link RedisLockClient} per server,
 * sharing one scheduler thread. A lock is granted when a majority of servers grant it within the lease's validity.
 */
final class QuorumLockClient implements LockClient {
    private static final Logger LOG = LoggerFactory.getLogger(QuorumLockClient.class);
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final LockConfig config;
    private final List<QuorumNode> nodes;
    private final CallbackPool callbacks;
    private final long awaitNanos;
    /** Never spins: a quorum's replies come from several servers, the slowest of a majority last. */
    private final Spinner spinner = new Spinner(0);
    private final ScheduledExecutorService scheduler;
    private final boolean ownScheduler;
    private final Set<QuorumLease> leases = ConcurrentHashMap.newKeySet();
    private final Set<QuorumAcquisition> pending = ConcurrentHashMap.newKeySet();
    private final Tokens tokens = new Tokens();
    private volatile boolean closed;

    private QuorumLockClient(LockConfig config, List<QuorumNode> nodes, ScheduledExecutorService scheduler,
                             boolean ownScheduler, String name) {
        this.config = config;
        this.nodes = List.copyOf(nodes);
        this.scheduler = scheduler;
        this.ownScheduler = ownScheduler;
        this.callbacks = new CallbackPool(name + "-callback");
        // Each server answers within the command timeout; this bound only guards against a lost future.
        this.awaitNanos = config.commandTimeout().toNanos() * 2 + TimeUnit.SECONDS.toNanos(1);
    }

    static QuorumLockClient open(LockConfig config) {
        String name = "warden-" + config.clientName() + "-quorum-" + CLIENTS.incrementAndGet();
        boolean own = config.scheduler().isEmpty();
        ScheduledExecutorService scheduler = config.scheduler().orElseGet(() -> {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                    RedisLockClient.daemonThreads(name + "-scheduler"));
            executor.setRemoveOnCancelPolicy(true);
            return executor;
        });
        List<QuorumNode> nodes = new ArrayList<>();
        int connected = 0;
        LockException failure = null;
        for (String uri : config.redisUris()) {
            QuorumNode node = new QuorumNode(config.toBuilder().redisUri(uri).scheduler(scheduler).build(),
                    scheduler);
            node.connectNow();
            nodes.add(node);
            if (node.connected() != null) {
                connected++;
            } else {
                try {
                    node.client();
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
            for (QuorumNode node : nodes) {
                try {
                    node.close();
                } catch (RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            if (own) {
                scheduler.shutdownNow();
            }
            throw e;
        }
        return new QuorumLockClient(config, nodes, scheduler, own, name);
    }

    @Override
    public DistributedLock lock(String name) {
        Require.lockName(name, MAX_NAME_LENGTH);
        if (closed) {
            throw new IllegalStateException("client is closed");
        }
        return new QuorumLock(this, name);
    }

    @Override
    public LockConfig config() {
        return config;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (QuorumAcquisition acquisition : new ArrayList<>(pending)) {
            acquisition.result.completeExceptionally(new LockException("client closed while acquiring"));
        }
        List<CompletableFuture<Void>> releases = new ArrayList<>();
        for (QuorumLease lease : new ArrayList<>(leases)) {
            releases.add(lease.abandon());
        }
        try {
            CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new))
                    .get(config.commandTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("not every quorum lease was released on close; the rest expire: {}", e.toString());
        }
        for (QuorumNode node : nodes) {
            node.close();
        }
        if (ownScheduler) {
            scheduler.shutdownNow();
        }
        callbacks.shutdown();
    }

    ExecutorService callbackExecutor() {
        return callbacks.executor();
    }

    List<QuorumNode> nodes() {
        return nodes;
    }

    /** @return how many servers make a majority */
    int majority() {
        return nodes.size() / 2 + 1;
    }

    /** @return whether so many servers refused (or failed) that a majority is out of reach */
    boolean outOfReach(int refusals) {
        return refusals > nodes.size() - majority();
    }

    /**
     * Whether a majority said yes, or so many said no or failed that a majority is out of reach; servers that have
     * not answered yet count for neither.
     */
    <T> boolean decided(List<Fanout.Outcome<T>> outcomes, Predicate<T> yes) {
        int agree = Fanout.count(outcomes, yes);
        int refuse = 0;
        for (Fanout.Outcome<T> outcome : outcomes) {
            refuse += outcome.pending() ? 0 : 1;
        }
        return agree >= majority() || outOfReach(refuse - agree);
    }

    Ticker ticker() {
        return config.ticker();
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    Tokens tokens() {
        return tokens;
    }

    void track(QuorumAcquisition acquisition) {
        pending.add(acquisition);
        if (closed) {
            acquisition.result.completeExceptionally(new LockException("client is closed"));
        }
    }

    void untrack(QuorumAcquisition acquisition) {
        pending.remove(acquisition);
    }

    void held(QuorumLease lease) {
        leases.add(lease);
    }

    void ended(QuorumLease lease) {
        leases.remove(lease);
    }

    /** Runs a lease-lost callback on the callback pool; its failure is logged. */
    void runCallback(Runnable callback) {
        callbacks.run(callback);
    }

    /** Runs an action on the client of every connected server. */
    void eachConnected(java.util.function.Consumer<RedisLockClient> action) {
        for (QuorumNode node : nodes) {
            RedisLockClient client = node.connected();
            if (client != null) {
                action.accept(client);
            }
        }
    }

    /** Waits for every server's answer, bounded like a single command, keeping the interrupt flag. */
    <T> T await(CompletableFuture<T> future, String what) {
        return RedisLockClient.await(future, what, config, awaitNanos);
    }

    Spinner spinner() {
        return spinner;
    }
}
