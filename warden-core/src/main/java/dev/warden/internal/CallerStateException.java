package dev.warden.internal;

/**
 * An operation that the state of the client or the lease refuses: the client is closed, or the lease was released.
 * The caller sees an {@link IllegalStateException}, from a blocking call and from an asynchronous one alike:
 * {@link Errors#forCaller} passes it on unchanged, where any other {@code IllegalStateException} inside the engine
 * is a fault of the engine and becomes a {@link dev.warden.LockException}.
 */
final class CallerStateException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    CallerStateException(String message) {
        super(message);
    }
}
