package dev.warden.internal.base;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A client's daemon threads for user callbacks and async completions, off Lettuce's I/O threads. */
public final class CallbackPool {
    private static final Logger LOG = LoggerFactory.getLogger(CallbackPool.class);

    private final ExecutorService executor;

    public CallbackPool(String threadPrefix) {
        this.executor = Executors.newCachedThreadPool(DaemonThreads.named(threadPrefix));
    }

    public ExecutorService executor() {
        return executor;
    }

    /** Runs a user callback; its failure is logged, since it has no caller to reach. */
    public void run(Runnable callback) {
        Runnable guarded = () -> {
            try {
                callback.run();
            } catch (RuntimeException | Error e) {
                LOG.warn("lease-lost callback failed", e);
            }
        };
        try {
            executor.execute(guarded);
        } catch (RuntimeException e) {
            // The pool is shut down: the client is closing, so run it here rather than lose it.
            guarded.run();
        }
    }

    public void shutdown() {
        executor.shutdown();
    }
}
