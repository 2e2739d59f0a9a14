package dev.warden.faults;

import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockInfo;
import dev.warden.ReadWriteLockInfo;
import dev.warden.SemaphoreInfo;
import java.time.Duration;
import java.util.Optional;

/**
 * Warden's read-write lock and semaphore under the fault suite, with renewed leases. A run's names carry the role
 * after a '#': {@code "prices#r"} takes the read lock of the read-write lock {@code prices}, {@code "prices#w"} its
 * write lock, and {@code "pool#p2"} one permit of the semaphore {@code pool} of 2 permits. Every role is its own
 * name in the history and the store; {@link FamilyChecker} joins them by the part before the '#'.
 */
final class FamilyLocks implements LocksUnderTest {
    private final LockClient client;

    /** @param spec the lock servers, as {@link LockTarget#spec()} gives them */
    FamilyLocks(String spec, Duration lease, boolean fair) {
        this.client = LockClient.create(LockTarget.configure(spec)
                .defaultLease(lease).commandTimeout(Duration.ofMillis(500)).fair(fair).build());
    }

    /** The lock's name without its role. */
    static String base(String name) {
        int hash = name.indexOf('#');
        return hash < 0 ? name : name.substring(0, hash);
    }

    /** The role after the '#': "r", "w", or "p" and the semaphore's permits. */
    static String role(String name) {
        int hash = name.indexOf('#');
        if (hash < 0) {
            throw new IllegalArgumentException("a family run's name needs a role after '#': " + name);
        }
        return name.substring(hash + 1);
    }

    /** Whether a family run's name is a semaphore's ("slots#p3"). */
    static boolean semaphore(String name) {
        return role(name).startsWith("p");
    }

    /** A semaphore's permits, from its role ("slots#p3": 3). */
    static int permits(String name) {
        return Integer.parseInt(role(name).substring(1));
    }

    /** The state of a role's lock, as a lock's: held by anyone, with the longest lease left. */
    static LockInfo inspect(LockClient client, String name) {
        if (semaphore(name)) {
            SemaphoreInfo info = client.semaphore(base(name), permits(name)).inspect();
            return new LockInfo(name, info.holders() > 0, info.longestLease(), info.lastFencingToken(),
                    info.waiters());
        }
        ReadWriteLockInfo info = client.readWriteLock(base(name)).inspect();
        return new LockInfo(name, info.writeLocked() || info.readers() > 0, info.longestLease(),
                info.lastFencingToken(), info.waiters());
    }

    /** Takes a role's lock: a read or write lock, or one permit. */
    static Optional<Lease> tryAcquire(LockClient client, String name, Duration wait) throws InterruptedException {
        String role = role(name);
        String base = base(name);
        return switch (role.charAt(0)) {
            case 'r' -> client.readWriteLock(base).readLock().tryAcquire(wait);
            case 'w' -> client.readWriteLock(base).writeLock().tryAcquire(wait);
            case 'p' -> client.semaphore(base, permits(name)).tryAcquire(1, wait);
            default -> throw new IllegalArgumentException("unknown role in " + name);
        };
    }

    /**
     * An administrator's forceRelease of the whole lock a role belongs to: every holder of the read-write lock,
     * readers and writer, or every permit of the semaphore; or of one half of a read-write lock alone.
     *
     * @param alone for a read-write lock's role: only its half ({@code readLock().forceRelease()}, the readers, or
     *              {@code writeLock().forceRelease()}, the writer); a semaphore has no half
     */
    static java.util.OptionalLong forceRelease(LockClient client, String name, boolean alone) {
        if (semaphore(name)) {
            return client.semaphore(base(name), permits(name)).forceRelease();
        }
        dev.warden.DistributedReadWriteLock lock = client.readWriteLock(base(name));
        if (!alone) {
            return lock.forceRelease();
        }
        return role(name).equals("r") ? lock.readLock().forceRelease() : lock.writeLock().forceRelease();
    }

    @Override
    public Held acquire(String name, Duration wait) throws InterruptedException {
        Optional<Lease> got = tryAcquire(client, name, wait);
        if (got.isEmpty()) {
            return null;
        }
        return WardenLocks.held(got.get());
    }

    @Override
    public void close() {
        client.close();
    }
}
