package dev.warden.shedlock;

import dev.warden.Lease;
import dev.warden.LeaseLostException;
import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * One ShedLock lock on a Warden lease. ShedLock makes it single-use: after {@link #unlock()} or a successful
 * {@code extend}, this object is spent ({@link IllegalStateException}); an extension returns a new one on the same
 * lease.
 */
final class WardenLock extends AbstractSimpleLock {
    private final Lease lease;

    WardenLock(Lease lease, LockConfiguration configuration) {
        super(configuration);
        this.lease = lease;
    }

    /** Releases now, or leaves the lock held in Redis until {@code lockAtLeastUntil} if that is still to come. */
    @Override
    protected void doUnlock() {
        lease.releaseAfter(Duration.between(ClockProvider.now(), lockConfiguration.getLockAtLeastUntil()));
    }

    /** Sets the lease to end at the new {@code lockAtMostUntil}; empty if the lease was lost meanwhile. */
    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration configuration) {
        if (!lease.isHeld()) {
            return Optional.empty();
        }
        try {
            if (!lease.extend(WardenLockProvider.until(configuration.getLockAtMostUntil()))) {
                return Optional.empty();
            }
        } catch (LeaseLostException e) {
            // Lost between the check and the request: not an error for the job, which simply no longer holds it.
            return Optional.empty();
        }
        return Optional.of((SimpleLock) new WardenLock(lease, configuration));
    }
}
