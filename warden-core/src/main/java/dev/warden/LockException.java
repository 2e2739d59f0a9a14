package dev.warden;

/**
 * A lock operation failed: Redis could not be reached, did not answer in time, answered with an error, or a lock
 * key holds something that is not a Warden lock. "Not acquired" is never an exception: it is an empty
 * {@link java.util.Optional}. This is the root of every unchecked exception Warden throws for a failure.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception.
     *
     * @param message what failed
     * @param cause   the underlying failure, or {@code null}
     */
    public LockException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Creates an exception without a cause.
     *
     * @param message what failed
     */
    public LockException(String message) {
        super(message);
    }
}
