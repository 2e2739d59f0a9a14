package dev.warden.internal.wire;

import dev.warden.LockConfig;
import dev.warden.internal.base.CallbackPool;
import dev.warden.internal.base.DaemonThreads;
import dev.warden.internal.base.Events;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads and timers of one {@link dev.warden.LockClient}, shared by every server it talks to (one, or each of
 * a quorum's): Lettuce's I/O and computation threads, the {@link CommandTimer}, the scheduler (the configured one,
 * or a thread of its own), the {@link CallbackPool} and the listener's {@link Events}. Created first and closed last,
 * by the client that owns it.
 */
public final class SharedResources {
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final String prefix;
    private final ScheduledExecutorService scheduler;
    private final boolean ownScheduler;
    private final CommandTimer timer;
    private final ClientResources lettuce;
    private final CallbackPool callbacks;
    private final Events events;

    private SharedResources(LockConfig config) {
        this.prefix = "warden-" + config.clientName() + "-" + CLIENTS.incrementAndGet();
        this.ownScheduler = config.scheduler().isEmpty();
        this.scheduler = config.scheduler().orElseGet(() -> {
            ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1,
                    DaemonThreads.named(prefix + "-scheduler"));
            own.setRemoveOnCancelPolicy(true);
            return own;
        });
        // Swept from before the first connection: the connection handshake's commands time out through it too.
        this.timer = new CommandTimer(config.ticker(), config.commandTimeout());
        timer.start(scheduler);
        this.lettuce = DefaultClientResources.builder()
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
        this.callbacks = new CallbackPool(prefix + "-callback");
        this.events = Events.start(config.listener().orElse(null), config.ticker(), prefix + "-events");
    }

    /** Starts the threads of a new client. */
    public static SharedResources create(LockConfig config) {
        return new SharedResources(config);
    }

    /** The names of the client's threads, for logs. */
    String prefix() {
        return prefix;
    }

    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    ClientResources lettuce() {
        return lettuce;
    }

    /** The threads of user callbacks and async completions. */
    public CallbackPool callbacks() {
        return callbacks;
    }

    public ExecutorService callbackExecutor() {
        return callbacks.executor();
    }

    /** The events for the client's listener. */
    public Events events() {
        return events;
    }

    /** Runs a user callback on the callback pool; its failure is logged, since it has no caller to reach. */
    void runCallback(Runnable callback) {
        callbacks.run(callback);
    }

    /** Stops every thread; call after the connections closed. */
    public void close() {
        lettuce.shutdown(0, 2, TimeUnit.SECONDS);
        timer.stop();
        if (ownScheduler) {
            scheduler.shutdownNow();
        }
        callbacks.shutdown();
        // Last: the events of the close itself (leases released, renewals ended) reach the listener.
        events.close(TimeUnit.SECONDS.toNanos(1));
    }
}
