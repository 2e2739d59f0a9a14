package dev.warden.cli;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting for a condition, bounded: the tests' one polling loop, instead of sleeps that guess how long it takes. */
final class Await {
    private Await() {
    }

    /**
     * Returns as soon as {@code condition} holds; fails, naming {@code description}, if it does not within
     * {@code timeout}.
     */
    static void await(BooleanSupplier condition, Duration timeout, String description) throws InterruptedException {
        if (!eventually(timeout, condition)) {
            throw new AssertionError("not within " + timeout.toMillis() + " ms: " + description);
        }
    }

    /** Whether {@code condition} holds within {@code timeout}, looked at every 10 ms. */
    static boolean eventually(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - end < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(10);
        }
        return condition.getAsBoolean();
    }
}
