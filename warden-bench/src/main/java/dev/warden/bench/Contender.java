package dev.warden.bench;

import java.time.Duration;
import java.util.Optional;

/** A lock implementation under measurement. One instance is shared by every thread of a scenario. */
interface Contender extends AutoCloseable {
    /** @return the name in reports */
    String name();

    /**
     * Acquires the lock on {@code key}, waiting as long as it takes.
     *
     * @return what releases it
     */
    Release acquire(String key) throws Exception;

    /**
     * Acquires the lock on {@code key} with a lease renewed while it is held, waiting at most {@code wait}; for the
     * contenders that S7 ({@link ManyWaiters}) blocks by the thousand in acquire, Warden's and Redisson's.
     *
     * @return what releases it, or empty if the wait ran out
     */
    default Optional<Release> tryAcquire(String key, Duration wait) throws Exception {
        throw new UnsupportedOperationException(name() + " has no timed acquire");
    }

    /**
     * Acquires the read (shared) half of the read-write lock on {@code key}, waiting as long as it takes; for a
     * contender that {@linkplain #takesPart takes part} in {@link Scenario.Kind#READ_WRITE} scenarios.
     *
     * @return what releases it
     */
    default Release acquireRead(String key) throws Exception {
        throw new UnsupportedOperationException(name() + " has no read-write lock");
    }

    /**
     * Acquires the write (exclusive) half of the read-write lock on {@code key}, waiting as long as it takes.
     *
     * @return what releases it
     */
    default Release acquireWrite(String key) throws Exception {
        throw new UnsupportedOperationException(name() + " has no read-write lock");
    }

    /**
     * Takes one permit of the semaphore of {@code permits} permits on {@code key}, waiting as long as it takes; for a
     * contender that {@linkplain #takesPart takes part} in {@link Scenario.Kind#SEMAPHORE} scenarios.
     *
     * @return what gives the permit back
     */
    default Release acquirePermit(String key, int permits) throws Exception {
        throw new UnsupportedOperationException(name() + " has no semaphore");
    }

    /**
     * @return whether it runs in the scenario: every lock runs in every lock scenario, and only the contenders that
     *         have a read-write lock or a semaphore in theirs; a line that prices something rather than locks across
     *         clients runs only where it measures what it prices (the PING line and the fenced floor where nothing is
     *         shared, the PING handoff where one client's threads share a lock)
     */
    default boolean takesPart(Scenario scenario) {
        return scenario.kind == Scenario.Kind.LOCK;
    }

    /** @return whether it uses the bench's Redis, whose requests are counted; false for ZooKeeper */
    default boolean onRedis() {
        return true;
    }

    @Override
    void close();

    /** Releases a held lock. */
    @FunctionalInterface
    interface Release {
        void release() throws Exception;

        /**
         * Releases, as {@link #release()}, and tells whether the lock was still held: what S7 counts as lost.
         *
         * @return false if the lock had been lost (its lease expired or was taken) before the release; true by
         *         default, for a lock whose release says nothing (Redisson's unlock throws instead)
         */
        default boolean releaseHeld() throws Exception {
            release();
            return true;
        }
    }
}
