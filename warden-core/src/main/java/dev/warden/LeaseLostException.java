package dev.warden;

/**
 * Thrown by {@link java.util.concurrent.locks.Lock#unlock()} of a {@link DistributedLock#asLock()} view when the
 * lease had already been lost (it expired or another owner took the lock) before the unlock: the critical section
 * may not have been exclusive, and the caller must know. Also thrown by {@link Lease#fencingToken()} when a token
 * must be issued for a lease that is no longer held.
 */
public class LeaseLostException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception.
     *
     * @param message which lease was lost
     */
    public LeaseLostException(String message) {
        super(message);
    }
}
