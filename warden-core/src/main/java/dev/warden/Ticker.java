package dev.warden;

/**
 * A monotonic clock in nanoseconds, such as {@link System#nanoTime()}. Lease deadlines and waits are measured with
 * it, never with the wall clock. Tests may supply their own.
 */
@FunctionalInterface
public interface Ticker {
    /**
     * Reads the clock.
     *
     * @return nanoseconds since an arbitrary origin; only differences are meaningful
     */
    long read();

    /**
     * Returns the system ticker.
     *
     * @return a ticker backed by {@link System#nanoTime()}
     */
    static Ticker system() {
        return System::nanoTime;
    }
}
