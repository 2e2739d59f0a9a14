package dev.warden;

/** Redis could not be reached: the connection is refused, closed or down. */
public class LockConnectionException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception.
     *
     * @param message what failed
     * @param cause   the underlying failure, or {@code null}
     */
    public LockConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
