package dev.warden;

/**
 * A client named a semaphore with another number of permits than the one stored with it in Redis, while the
 * semaphore is in use (a live lease holds permits, or a live acquire waits). Every client of a semaphore must name
 * the same number while it is in use, since the number decides how many permits are lent; a semaphore nobody uses
 * takes the number of the next client that does, and {@link DistributedSemaphore#resize} changes it while it is in
 * use. Nothing was acquired or changed.
 */
public class SemaphorePermitsException extends LockException {
    private static final long serialVersionUID = 1L;

    private final int stored;
    private final int named;

    /**
     * Creates an exception.
     *
     * @param message what failed
     * @param stored  the number of permits stored in Redis
     * @param named   the number this client named
     */
    public SemaphorePermitsException(String message, int stored, int named) {
        super(message, null);
        this.stored = stored;
        this.named = named;
    }

    /** @return the number of permits stored with the semaphore in Redis */
    public int stored() {
        return stored;
    }

    /** @return the number of permits this client named */
    public int named() {
        return named;
    }
}
