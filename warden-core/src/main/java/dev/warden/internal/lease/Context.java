package dev.warden.internal.lease;

import dev.warden.LockConfig;
import dev.warden.Ticker;
import dev.warden.internal.base.Await;
import dev.warden.internal.base.CallbackPool;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Spinner;
import dev.warden.internal.wire.InFlight;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * What every kind of lock of one client works with, whatever its kind: the parts of a {@code LockContext} and a
 * {@code ShareContext} that are the same, and the small conveniences over them.
 */
public interface Context {
    /** @return the client's configuration */
    LockConfig config();



    /** @return the requests in flight, which closing the client waits for */
    InFlight inFlight();

    /** @return draws a new acquisition's token */
    Supplier<String> tokens();

    /** @return how blocking calls wait for an answer */
    Await await();

    /** @return the client's timer thread */
    ScheduledExecutorService scheduler();

    /** @return the client's callback threads */
    CallbackPool callbacks();

    /** @return the client's listener events */
    Events events();

    default Ticker ticker() {
        return config().ticker();
    }

    default String newToken() {
        return tokens().get();
    }

    /** Waits for the answer of one operation ({@link Await#await}); {@code what} names it in a failure. */
    default <T> T await(CompletableFuture<T> future, String what) {
        return await().await(future, what);
    }

    default Spinner spinner() {
        return await().spinner();
    }

    default ExecutorService callbackExecutor() {
        return callbacks().executor();
    }

    /** Runs a user callback on the callback threads; its failure is logged, since it has no caller to reach. */
    default void runCallback(Runnable callback) {
        callbacks().run(callback);
    }
}
