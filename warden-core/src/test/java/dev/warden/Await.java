package dev.warden;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waiting for a condition, bounded: the tests' one polling loop (RedisTestSupport's tests and the topology tests),
 * instead of sleeps that guess how long something takes.
 */
public final class Await {
    private Await() {
    }

    /**
     * Returns as soon as {@code condition} holds; fails, naming {@code description}, if it does not within
     * {@code timeout}.
     *
     * @param condition   what to wait for
     * @param timeout     how long at most
     * @param description what is waited for, in the failure's message
     * @throws InterruptedException if interrupted while waiting
     */
    public static void await(BooleanSupplier condition, Duration timeout, String description)
            throws InterruptedException {
        if (!eventually(timeout, condition)) {
            throw new AssertionError("not within " + timeout.toMillis() + " ms: " + description);
        }
    }

    /**
     * Waits, bounded, until a condition holds.
     *
     * @param bound     how long at most
     * @param condition what to wait for
     * @return whether it held within the bound
     * @throws InterruptedException if interrupted while waiting
     */
    public static boolean eventually(Duration bound, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() - end < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(10);
        }
        return condition.getAsBoolean();
    }
}
