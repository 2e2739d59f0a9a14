package dev.warden.internal;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Callbacks that run after a future is done and whose caller has its answer already (clean-up, bookkeeping): what
 * such a callback throws has nobody to reach, so it is logged here rather than left in a future nobody reads.
 */
final class Futures {
    private static final Logger LOG = LoggerFactory.getLogger(Futures.class);

    private Futures() {
    }

    /**
     * Runs {@code callback} when {@code future} is done; logs what it throws.
     *
     * @param what names the callback in the log (a constant, so that nothing is built per call)
     * @param lock the lock it is about, for the log; null if none
     */
    static <T> void whenDone(CompletableFuture<T> future, BiConsumer<? super T, ? super Throwable> callback,
                             String what, String lock) {
        future.whenComplete((value, error) -> {
            try {
                callback.accept(value, error);
            } catch (RuntimeException | Error e) {
                LOG.error("{}{} failed after its future was done; nobody else can be told", what,
                        lock == null ? "" : " of lock '" + lock + "'", e);
            }
        });
    }
}
