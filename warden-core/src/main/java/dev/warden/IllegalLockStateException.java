package dev.warden;

/**
 * A call that the state of the client, the lease or the calling thread refuses: the client is closed, the lease was
 * released, or a blocking acquire would wait for a lock its own thread holds. It is an
 * {@link IllegalStateException}, from a blocking call and from an asynchronous one alike (through the future), so
 * that code catching {@code IllegalStateException} sees it; its own type tells it from Warden's failures to reach
 * or use Redis, which are {@link LockException}s.
 */
public final class IllegalLockStateException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what was refused, and why
     */
    public IllegalLockStateException(String message) {
        super(message);
    }
}
