package dev.warden.internal.base;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two helpers for futures. {@link #whenDone}: callbacks that run after a future is done and whose caller has its
 * answer already (clean-up, bookkeeping): what such a callback throws has nobody to reach, so it is logged here
 * rather than left in a future nobody reads. {@link #publish}: the future that an asynchronous method of the API
 * hands its caller.
 */
public final class Futures {
    private static final Logger LOG = LoggerFactory.getLogger(Futures.class);

    private Futures() {
    }

    /**
     * Runs {@code callback} when {@code future} is done; logs what it throws.
     *
     * @param what names the callback in the log (a constant, so that nothing is built per call)
     * @param lock the lock it is about, for the log; null if none
     */
    public static <T> void whenDone(CompletableFuture<T> future, BiConsumer<? super T, ? super Throwable> callback,
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

    /**
     * The future an asynchronous method of the API returns for the engine's {@code internal} one: completed on
     * {@code executor}, off the connections' I/O threads, so that the caller's own stages neither run on nor block
     * them; failed with what the blocking form of the method would throw ({@link Errors#forCaller}). A client whose
     * executor has shut down completes it on the thread that completed {@code internal}.
     *
     * @param what the operation, for messages, such as {@code "release of lock 'orders:42'"}
     */
    public static <T> CompletableFuture<T> publish(CompletableFuture<T> internal, Executor executor, String what) {
        CompletableFuture<T> out = new CompletableFuture<>();
        internal.whenComplete((value, error) -> {
            Runnable complete = () -> {
                if (error == null) {
                    out.complete(value);
                } else {
                    out.completeExceptionally(Errors.forCaller(error, what));
                }
            };
            try {
                executor.execute(complete);
            } catch (RejectedExecutionException e) {
                complete.run();
            }
        });
        return out;
    }

    /**
     * {@link #publish} for an operation that may fail before it sends anything (a lease released, a client
     * closed): that failure completes the returned future too, instead of being thrown.
     */
    public static <T> CompletableFuture<T> publish(Supplier<CompletableFuture<T>> internal, Executor executor,
                                            String what) {
        CompletableFuture<T> started;
        try {
            started = internal.get();
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        return publish(started, executor, what);
    }
}
