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
        long end = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not within " + timeout.toMillis() + " ms: " + description);
            }
            Thread.sleep(10);
        }
    }
}
