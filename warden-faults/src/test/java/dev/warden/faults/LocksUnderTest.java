package dev.warden.faults;

import java.time.Duration;

/** The lock a fault run exercises: Warden, or a deliberately broken one that the checker must catch. */
interface LocksUnderTest extends AutoCloseable {
    /**
     * Tries to acquire, waiting up to {@code wait}.
     *
     * @return the hold, or null if the lock was not free in time
     */
    Held acquire(String name, Duration wait) throws InterruptedException;

    @Override
    void close();

    /** One acquisition. */
    interface Held {
        long fence();

        /** Until when (System.nanoTime) this holder may still assume it holds the lock, or -1 if it may not now. */
        long validUntil();

        /** Releases; true if it still held the lock, false if the lease was lost. */
        boolean release();

        /** When the lock reported this lease lost (System.nanoTime), or -1 if it did not. */
        long lostAt();
    }
}
