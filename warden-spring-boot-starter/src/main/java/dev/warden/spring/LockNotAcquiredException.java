package dev.warden.spring;

import java.time.Duration;

/**
 * A {@link Locked} method was not run: its lock was held by another until the wait ran out. Not a
 * {@link dev.warden.LockException}: nothing failed, the lock was busy, so a policy that retries failures of Redis
 * does not mistake one for the other.
 */
public class LockNotAcquiredException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String lockName;

    /**
     * @param lockName the lock's name
     * @param waited   how long the call waited, as {@link Locked#waitFor} said; null for as long as it takes
     */
    public LockNotAcquiredException(String lockName, Duration waited) {
        super("lock '" + lockName + "' not acquired" + (waited == null || waited.isZero() ? "" : " within " + waited)
                + ": the method did not run");
        this.lockName = lockName;
    }

    /** @return the name of the lock that was held */
    public String lockName() {
        return lockName;
    }
}
