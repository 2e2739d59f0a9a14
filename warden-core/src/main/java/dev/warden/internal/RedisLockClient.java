package dev.warden.internal;

import dev.warden.DistributedLock;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockException;
import dev.warden.LockTimeoutException;
import dev.warden.Ticker;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client of one Redis deployment (a server, a Sentinel-managed master, or a cluster): its {@link Link}, the
 * pub/sub {@link Notifier}, the {@link Watchdog}, a scheduler thread and a callback pool. Internal; use
 * {@link LockClient#create(LockConfig)}.
 */
public final class RedisLockClient implements LockClient {
    private static final Logger LOG = LoggerFactory.getLogger(RedisLockClient.class);
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final LockConfig config;
    private final ClientResources resources;
    private final CommandTimer timer;
    private final Link link;
    private final Scripts scripts;
    private final Notifier notifier;
    private final Watchdog watchdog;
    private final ScheduledExecutorService scheduler;
    private final boolean ownScheduler;
    private final CallbackPool callbacks;
    private final Tokens tokens = new Tokens();
    private final String instanceId = tokens.next();
    private final Set<Acquisition> pending = ConcurrentHashMap.newKeySet();
    private final InFlight inFlight = new InFlight();
    private final long awaitNanos;
    private final Spinner spinner;
    private volatile boolean closed;

    /**
     * @param prefix    the names of this client's threads
     * @param scheduler the client's scheduler, already sweeping {@code timer}
     */
    private RedisLockClient(LockConfig config, ClientResources resources, CommandTimer timer, Link link,
                            String prefix, ScheduledExecutorService scheduler) {
        this.config = config;
        this.resources = resources;
        this.timer = timer;
        this.link = link;
        this.ownScheduler = config.scheduler().isEmpty();
        this.scheduler = scheduler;
        this.callbacks = new CallbackPool(prefix + "-callback");
        this.scripts = new Scripts(link);
        this.notifier = new Notifier(link, instanceId, scheduler);
        this.watchdog = new Watchdog(scheduler, config.ticker(), scripts, inFlight, link.cluster());
        // Lettuce's own timeout fires first; this bound only guards against a future that never completes.
        this.awaitNanos = config.commandTimeout().toNanos() * 2 + TimeUnit.SECONDS.toNanos(1);
        this.spinner = new Spinner(config.spinWait().toNanos());
    }

    /**
     * Connects and creates a client for the configuration's topology.
     *
     * @param config the configuration
     * @return the client
     * @throws NullPointerException if {@code config} is null
     * @throws LockException        if Redis cannot be reached or refuses the connection
     */
    public static LockClient open(LockConfig config) {
        Objects.requireNonNull(config, "config");
        return config.topology() == LockConfig.Topology.QUORUM ? QuorumLockClient.open(config) : connect(config);
    }

    /** Connects to one server, a Sentinel-managed master, or a cluster. */
    static RedisLockClient connect(LockConfig config) {
        List<RedisURI> uris = new ArrayList<>();
        for (String text : config.redisUris()) {
            RedisURI uri = RedisUris.parse(text);
            uri.setTimeout(config.commandTimeout());
            uri.setClientName(config.clientName());
            uris.add(uri);
        }
        String prefix = "warden-" + config.clientName() + "-" + CLIENTS.incrementAndGet();
        ScheduledExecutorService scheduler = config.scheduler().orElseGet(() -> {
            ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1, daemon(prefix + "-scheduler"));
            own.setRemoveOnCancelPolicy(true);
            return own;
        });
        // Swept from before the first connection: the connection handshake's commands time out through it too.
        CommandTimer timer = new CommandTimer(config.ticker(), config.commandTimeout());
        timer.start(scheduler);
        ClientResources resources = DefaultClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                .timer(timer)
                // Batches the flushes of commands that arrive together; see FlushBatcher.
                .nettyCustomizer(new NettyCustomizer() {
                    @Override
                    public void afterChannelInitialized(Channel channel) {
                        channel.pipeline().addFirst("warden-flush-batcher", new FlushBatcher());
                    }
                })
                .build();
        SocketOptions socket = SocketOptions.builder()
                .connectTimeout(config.commandTimeout())
                .keepAlive(true)
                .build();
        TimeoutOptions timeouts = TimeoutOptions.enabled(config.commandTimeout());
        AbstractRedisClient redis;
        Supplier<Link> link;
        if (config.topology() == LockConfig.Topology.CLUSTER) {
            RedisClusterClient cluster = RedisClusterClient.create(resources, uris);
            cluster.setOptions(ClusterClientOptions.builder()
                    .autoReconnect(true)
                    .timeoutOptions(timeouts)
                    .socketOptions(socket)
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers()
                            .build())
                    .build());
            redis = cluster;
            link = () -> new ClusterLink(cluster);
        } else {
            RedisClient single = RedisClient.create(resources);
            single.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .timeoutOptions(timeouts)
                    .socketOptions(socket)
                    .build());
            redis = single;
            link = () -> new StandaloneLink(single, uris.get(0));
        }
        try {
            return new RedisLockClient(config, resources, timer, link.get(), prefix, scheduler);
        } catch (RuntimeException e) {
            LockException failure = Errors.translate(e, "connect to " + config.redisUriForDisplay());
            try {
                redis.shutdown(0, 1, TimeUnit.SECONDS);
                resources.shutdown(0, 1, TimeUnit.SECONDS);
                timer.stop();
                if (config.scheduler().isEmpty()) {
                    scheduler.shutdownNow();
                }
            } catch (RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            throw failure;
        }
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
    public LockConfig config() {
        return config;
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
        inFlight.close();
        for (Acquisition acquisition : new ArrayList<>(pending)) {
            acquisition.result.completeExceptionally(new LockException("client closed while acquiring"));
        }
        boolean interrupted = false;
        try {
            // Replies to tries already sent may still grant locks, which are released as they come.
            inFlight.awaitNone(awaitNanos);
            List<String> unreleased = Collections.synchronizedList(new ArrayList<>());
            for (RedisLease lease : new ArrayList<>(watchdog.leases())) {
                lease.abandon().thenAccept(released -> {
                    if (!released) {
                        unreleased.add(lease.lockName());
                    }
                });
            }
            if (!inFlight.awaitNone(awaitNanos)) {
                LOG.warn("{} requests still unanswered on close", inFlight.count());
            }
            if (!unreleased.isEmpty()) {
                LOG.warn("could not release {} on close; they expire at the end of their leases", unreleased);
            }
        } catch (InterruptedException e) {
            interrupted = true;
            LOG.warn("interrupted while releasing leases on close; the rest expire at the end of their leases");
        }
        watchdog.close();
        notifier.close();
        link.close();
        resources.shutdown(0, 2, TimeUnit.SECONDS);
        timer.stop();
        if (ownScheduler) {
            scheduler.shutdownNow();
        }
        callbacks.shutdown();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The requests in flight, which {@link #close()} waits for; every request's callback is attached there. */
    InFlight inFlight() {
        return inFlight;
    }

    Ticker ticker() {
        return config.ticker();
    }

    /** @return whether this client talks to a cluster, where replica acknowledgements are not available */
    boolean cluster() {
        return link.cluster();
    }

    Scripts scripts() {
        return scripts;
    }

    Notifier notifier() {
        return notifier;
    }

    Watchdog watchdog() {
        return watchdog;
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    ExecutorService callbackExecutor() {
        return callbacks.executor();
    }

    Tokens tokens() {
        return tokens;
    }

    /** A random id of this client, sent as the wake-up message of its releases. */
    String instanceId() {
        return instanceId;
    }

    void track(Acquisition acquisition) {
        pending.add(acquisition);
        if (closed) {
            acquisition.result.completeExceptionally(new LockException("client is closed"));
        }
    }

    void untrack(Acquisition acquisition) {
        pending.remove(acquisition);
    }

    /** Runs a user callback on the callback pool; its failure is logged, since it has no caller to reach. */
    void runCallback(Runnable callback) {
        callbacks.run(callback);
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
                    throw Errors.translate(e.getCause(), what);
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

    static ThreadFactory daemonThreads(String prefix) {
        return daemon(prefix);
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
