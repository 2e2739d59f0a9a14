package dev.warden.shedlock;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@link ExtensibleLockProvider} on Warden: each ShedLock lock name is a Warden lock of the same name,
 * taken with one try and a fixed lease of {@code lockAtMostFor}. Unlocking before {@code lockAtLeastFor} has passed
 * leaves the lock held in Redis until then ({@link Lease#releaseAfter}); extending sets the lease's expiry in Redis
 * ({@link Lease#extend}). No local timer is involved, so a client that closes or a process that dies changes
 * nothing: the expiry is Redis's.
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(LockClient client) {
 *     return new WardenLockProvider(client);
 * }
 * }</pre>
 *
 * <p>The client stays the caller's: this provider neither creates nor closes it. Errors from Redis reach ShedLock
 * as the {@link LockException} they are, which it logs, skipping the run.
 */
public final class WardenLockProvider implements ExtensibleLockProvider {
    private final LockClient client;

    /**
     * @param client the client whose locks ShedLock's jobs take
     * @throws NullPointerException if {@code client} is null
     */
    public WardenLockProvider(LockClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * Tries once to take the lock for {@code lockAtMostFor} from now.
     *
     * @return the lock, or empty if another holder has it
     * @throws LockException if Redis fails, or the thread was interrupted (with its interrupt flag kept)
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        DistributedLock lock = client.lock(configuration.getName());
        Optional<Lease> lease;
        try {
            lease = lock.tryAcquire(Duration.ZERO, until(configuration.getLockAtMostUntil()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("lock '" + configuration.getName() + "' for ShedLock: interrupted", e);
        }
        return lease.map(held -> (SimpleLock) new WardenLock(held, configuration));
    }

    /** The time from now until {@code instant}, at least the one millisecond a lease needs. */
    static Duration until(java.time.Instant instant) {
        Duration left = Duration.between(ClockProvider.now(), instant);
        return left.toMillis() < 1 ? Duration.ofMillis(1) : left;
    }
}
