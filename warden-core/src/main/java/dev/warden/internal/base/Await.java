package dev.warden.internal.base;

import dev.warden.LockConfig;
import dev.warden.LockTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How a blocking call waits for the answer of one Redis operation: spinning first while the {@link Spinner}
 * allows, then parked, bounded by {@link #nanos()} so that it finishes even when the thread is interrupted (a release
 * in a {@code finally} block of an interrupted thread must still release; the flag is set again afterwards).
 * Failures are translated for the caller ({@link Errors#forCaller}). Immutable.
 */
public final class Await {
    private final LockConfig config;
    private final long nanos;
    private final Spinner spinner;

    /** Spins as long as {@code config}'s spin wait allows. */
    public Await(LockConfig config) {
        this(config, config.spinWait().toNanos());
    }

    public Await(LockConfig config, long spinNanos) {
        this.config = config;
        this.nanos = nanos(config);
        this.spinner = new Spinner(spinNanos);
    }

    /**
     * How long to wait for a future that a command's reply completes: Lettuce's own timeout fires first; this
     * bound only guards against a future that never completes.
     */
    public static long nanos(LockConfig config) {
        return config.commandTimeout().toNanos() * 2 + TimeUnit.SECONDS.toNanos(1);
    }

    public long nanos() {
        return nanos;
    }

    public Spinner spinner() {
        return spinner;
    }

    /** Waits for {@code future}, spinning first; {@code what} names the operation in a failure's message. */
    public <T> T await(CompletableFuture<T> future, String what) {
        if (future.isDone()) {
            return await(future, what, config, nanos);
        }
        long since = System.nanoTime();
        spinner.enter();
        try {
            spinner.spin(future, since, () -> true);
            return await(future, what, config, nanos);
        } finally {
            spinner.exit();
        }
    }

    /**
     * Waits for a future bounded by {@code awaitNanos}, finishing even when the thread is interrupted (the flag is
     * set again afterwards), and translates failures.
     */
    public static <T> T await(CompletableFuture<T> future, String what, LockConfig config, long awaitNanos) {
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
