package dev.warden.bench;

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
     * @return whether it runs only in the scenarios where nothing is shared: a line that prices something (the
     *         PING line, which excludes nothing; the fenced floor, which would spin), not a lock to compare under
     *         contention
     */
    default boolean uncontendedOnly() {
        return false;
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
    }
}
