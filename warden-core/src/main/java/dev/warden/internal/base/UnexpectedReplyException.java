package dev.warden.internal.base;

/** A reply of another shape than its script's, which {@link Errors#translate} turns into a {@code LockException}. */
public final class UnexpectedReplyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UnexpectedReplyException(String message, Throwable cause) {
        super(message, cause);
    }
}
