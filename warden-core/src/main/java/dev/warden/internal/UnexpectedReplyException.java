package dev.warden.internal;

/** A reply of another shape than its script's, which {@link Errors#translate} turns into a {@code LockException}. */
final class UnexpectedReplyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnexpectedReplyException(String message, Throwable cause) {
        super(message, cause);
    }
}
