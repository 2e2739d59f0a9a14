package dev.warden.integration;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LeaseLostException;
import dev.warden.LockException;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock of a {@link WardenLockRegistry}: reentrant for the thread that holds it, as Spring Integration's
 * registries are. A local {@link ReentrantLock} says which thread of this process holds it and how often; the
 * outermost lock takes a Warden lease and the matching outermost unlock releases it.
 */
final class WardenRegistryLock implements org.springframework.integration.support.locks.DistributedLock {
    private final String key;
    private final DistributedLock lock;
    /** The lease that fixed-lease acquisitions take when no TTL is given; null for watchdog-renewed leases. */
    private final Duration defaultTtl;
    /** Which thread of this process holds the lock, and how often. */
    private final ReentrantLock local = new ReentrantLock();
    /** The lease while the lock is held. Written by the thread that holds {@link #local}. */
    private volatile Lease lease;
    /** When the lock was last obtained or released, by {@link System#nanoTime()}: for expiring unused locks. */
    private volatile long lastUsed = System.nanoTime();

    WardenRegistryLock(String key, DistributedLock lock, Duration defaultTtl) {
        this.key = key;
        this.lock = lock;
        this.defaultTtl = defaultTtl;
    }

    @Override
    public void lock() {
        lock(defaultTtl);
    }

    /** Waits until it holds the lock, ignoring interrupts (restoring the flag after), with a lease of {@code ttl}. */
    @Override
    public void lock(Duration ttl) {
        local.lock();
        if (local.getHoldCount() > 1) {
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    lease = acquire(null, ttl).orElseThrow();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        } finally {
            touch();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        local.lockInterruptibly();
        if (local.getHoldCount() > 1) {
            return;
        }
        try {
            lease = acquire(null, defaultTtl).orElseThrow();
        } catch (InterruptedException | RuntimeException | Error e) {
            local.unlock();
            throw e;
        } finally {
            touch();
        }
    }

    @Override
    public boolean tryLock() {
        if (!local.tryLock()) {
            return false;
        }
        if (local.getHoldCount() > 1) {
            return true;
        }
        try {
            return holdIf(defaultTtl == null ? lock.tryAcquire() : tryOnceFixed());
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(unit.toNanos(time)), defaultTtl);
    }

    /** Waits up to {@code waitTime} (this process's other threads first, then Redis) with a lease of {@code ttl}. */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        long deadline = System.nanoTime() + Math.max(0, waitTime.toNanos());
        if (!local.tryLock(Math.max(0, waitTime.toNanos()), TimeUnit.NANOSECONDS)) {
            return false;
        }
        if (local.getHoldCount() > 1) {
            return true;
        }
        try {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            return holdIf(acquire(left, ttl));
        } catch (InterruptedException | RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    /**
     * Releases one hold of the calling thread; the last releases the lease.
     *
     * @throws IllegalStateException            if the calling thread does not hold the lock
     * @throws ConcurrentModificationException if the lease had been lost before (expired, or Redis lost it): another
     *                                         holder may have changed what the lock protects. The type is
     *                                         {@code RedisLockRegistry}'s; the cause is Warden's
     *                                         {@link LeaseLostException}.
     */
    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalStateException("lock '" + key + "' is not held by this thread");
        }
        if (local.getHoldCount() > 1) {
            local.unlock();
            return;
        }
        Lease held = lease;
        lease = null;
        boolean released;
        try {
            released = held.release();
        } finally {
            touch();
            local.unlock();
        }
        if (!released) {
            ConcurrentModificationException lost = new ConcurrentModificationException("lock '" + key
                    + "' was lost before unlock (its lease ended or Redis lost it): what it protected may have been"
                    + " changed by another holder");
            lost.initCause(new LeaseLostException("lease of lock '" + key + "' lost before unlock"));
            throw lost;
        }
    }

    /** @throws UnsupportedOperationException always: a distributed lock has no conditions */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("a Warden lock has no conditions");
    }

    /**
     * Sets the lease of the lock the calling thread holds to end {@code ttl} from now, in Redis.
     *
     * @throws IllegalStateException if the calling thread does not hold it, or its lease is renewed by the watchdog
     *                               (it never expires while held)
     * @throws LeaseLostException    if the lease was found lost
     */
    void renew(Duration ttl) {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalStateException("lock '" + key + "' is not held by this thread");
        }
        if (ttl != null && !lease.extend(ttl)) {
            throw new LeaseLostException("lease of lock '" + key + "' was found lost when renewed");
        }
        if (ttl == null && !lease.isHeld()) {
            throw new LeaseLostException("lease of lock '" + key + "' is lost");
        }
    }

    /** The lease of the thread that holds the lock, for its fencing token; empty if this thread does not hold it. */
    Optional<Lease> leaseOfCurrentThread() {
        return local.isHeldByCurrentThread() ? Optional.ofNullable(lease) : Optional.empty();
    }

    boolean heldInThisProcess() {
        return local.isLocked();
    }

    long lastUsed() {
        return lastUsed;
    }

    private boolean holdIf(Optional<Lease> acquired) {
        touch();
        if (acquired.isEmpty()) {
            local.unlock();
            return false;
        }
        lease = acquired.get();
        return true;
    }

    /** @param wait null for as long as it takes */
    private Optional<Lease> acquire(Duration wait, Duration ttl) throws InterruptedException {
        if (ttl == null) {
            return wait == null ? Optional.of(lock.acquire()) : lock.tryAcquire(wait);
        }
        if (wait == null) {
            // A fixed lease and no limit: wait in long steps, each a single wait for a release, not a poll.
            while (true) {
                Optional<Lease> got = lock.tryAcquire(Duration.ofDays(1), ttl);
                if (got.isPresent()) {
                    return got;
                }
            }
        }
        return lock.tryAcquire(wait, ttl);
    }

    /** One try for a fixed lease; as Warden's own {@code tryAcquire()}, an interrupt fails it with the flag kept. */
    private Optional<Lease> tryOnceFixed() {
        try {
            return lock.tryAcquire(Duration.ZERO, defaultTtl);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("lock '" + key + "': interrupted", e);
        }
    }

    private void touch() {
        lastUsed = System.nanoTime();
    }

    @Override
    public String toString() {
        return "WardenRegistryLock{" + key + ", held here=" + local.isLocked() + "}";
    }
}
