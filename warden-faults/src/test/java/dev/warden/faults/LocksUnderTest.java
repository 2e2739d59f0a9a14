package dev.warden.faults;

import java.time.Duration;
import java.util.List;

/** The lock a fault run exercises: Warden, or a deliberately broken one that the checker must catch. */
interface LocksUnderTest extends AutoCloseable {
    /**
     * Tries to acquire, waiting up to {@code wait}.
     *
     * @param name one name, or for a multi-lock ({@link #parts()} above 1) several joined by '+'
     * @return the hold, or null if the lock was not free in time
     * @throws Hung if an async acquire did not complete within its bound
     */
    Held acquire(String name, Duration wait) throws InterruptedException;

    /** How many names one acquire takes: 1, or more for a multi-lock. */
    default int parts() {
        return 1;
    }

    /**
     * After {@link #acquire} of a multi-lock came back empty, on the same thread: the parts that the lock server
     * still shows held by this thread's client and thread, joined by '+', or "-" if none; null for a single lock.
     */
    default String heldAfterMiss(String name) {
        return null;
    }

    @Override
    void close();

    /** An async acquire whose future did not complete within its bound. */
    final class Hung extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Hung(String what) {
            super(what, null, false, false);
        }
    }

    /** One acquisition. */
    interface Held {
        long fence();

        /** Until when (System.nanoTime) this holder may still assume it holds the lock, or -1 if it may not now. */
        long validUntil();

        /** Releases; true if it still held the lock, false if the lease was lost. */
        boolean release();

        /** When the lock reported this lease lost (System.nanoTime), or -1 if it did not. */
        long lostAt();

        /**
         * Whether the hold shows a lease (a fencing token and a validity): then it enters the history as an
         * acquisition with writes to the store; otherwise only as claims, the outer acquire's and each reentrant
         * one's.
         */
        default boolean fenced() {
            return true;
        }

        /** The names held (a multi-lock's parts), or null for the one name asked for. */
        default List<String> names() {
            return null;
        }

        /** The fencing token of one part of a multi-lock. */
        default long fence(String part) {
            return fence();
        }

        /** Whether {@link #reenter()} may be called: a reentrant view. */
        default boolean reentrant() {
            return false;
        }

        /**
         * Acquires again, reentrantly, or extends (ShedLock), without waiting.
         *
         * @return true if the caller was told it holds the lock (a claim), false if not acquired
         * @throws dev.warden.LeaseLostException if the caller was told its lease was lost
         */
        default boolean reenter() {
            return false;
        }

        /** Releases one reentrant hold taken by {@link #reenter()}. */
        default void exit() {
        }
    }
}
