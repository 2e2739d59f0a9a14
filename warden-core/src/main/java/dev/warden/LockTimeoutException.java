package dev.warden;

/**
 * Redis did not answer within the configured command timeout ({@link LockConfig#commandTimeout()}). An acquire that
 * timed out may have taken the lock on the server; Warden then releases it in the background.
 */
public class LockTimeoutException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception.
     *
     * @param message what timed out
     * @param cause   the underlying failure, or {@code null}
     */
    public LockTimeoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
