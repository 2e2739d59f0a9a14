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

    @Override
    void close();

    /** Releases a held lock. */
    @FunctionalInterface
    interface Release {
        void release() throws Exception;
    }
}
