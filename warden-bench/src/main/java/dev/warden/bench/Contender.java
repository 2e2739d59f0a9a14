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
     * @return whether it runs in the scenario: every lock does; a line that prices something rather than locks
     *         across clients runs only where it measures what it prices (the PING line and the fenced floor where
     *         nothing is shared, the PING handoff where one client's threads share a key)
     */
    default boolean takesPart(Scenario scenario) {
        return true;
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
