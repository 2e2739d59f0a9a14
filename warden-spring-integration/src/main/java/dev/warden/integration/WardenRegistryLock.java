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
 * outermost lock takes a Warden lease and the matching outermost unlock releases it. A reentrant lock asks Redis
 * whether the lease still holds the lock ({@link Lease#confirm()}) and fails if not, leaving the hold count as it
 * was: {@code tryLock} says {@code false}, {@code lock} and {@code lockInterruptibly} throw
 * {@link LeaseLostException}. A fixed lease is renewed on the registry's scheduler, if it has one, until the unlock.
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
    /** The scheduled renewal of a fixed lease, while held; null if none. Written by the holder, as {@link #lease}. */
    private volatile Renewals.Renewal renewal;
    private final Renewals renewals;
    /** When the lock was last obtained or released, by {@link System#nanoTime()}: for expiring unused locks. */
    private volatile long lastUsed = System.nanoTime();

    WardenRegistryLock(String key, DistributedLock lock, Duration defaultTtl, Renewals renewals) {
        this.key = key;
        this.lock = lock;
        this.defaultTtl = defaultTtl;
        this.renewals = renewals;
    }

    @Override
    public void lock() {
        lock(defaultTtl);
    }

    /**
     * Waits until it holds the lock, ignoring interrupts (restoring the flag after), with a lease of {@code ttl}.
     *
     * @throws LeaseLostException if the calling thread holds it already and its lease was found lost: the hold count
     *                            stays as it was, and the outer {@code unlock()} throws
     *                            {@link ConcurrentModificationException}
     */
    @Override
    public void lock(Duration ttl) {
        local.lock();
        if (local.getHoldCount() > 1) {
            reenterOrThrow();
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    hold(acquire(null, ttl).orElseThrow(), ttl);
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

    /** @throws LeaseLostException as {@link #lock(Duration)} */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        local.lockInterruptibly();
        if (local.getHoldCount() > 1) {
            reenterOrThrow();
            return;
        }
        try {
            hold(acquire(null, defaultTtl).orElseThrow(), defaultTtl);
        } catch (InterruptedException | RuntimeException | Error e) {
            local.unlock();
            throw e;
        } finally {
            touch();
        }
    }

    /**
     * @return whether the calling thread holds the lock now; {@code false} also when it held it already but its lease
     *         was found lost (as {@code RedisLockRegistry} says when another process took the expired lock): the hold
     *         count then stays as it was, and the outer {@code unlock()} throws
     *         {@link ConcurrentModificationException}
     * @throws LockException if Redis fails to answer (the hold count stays as it was)
     */
    @Override
    public boolean tryLock() {
        if (!local.tryLock()) {
            return false;
        }
        if (local.getHoldCount() > 1) {
            return reenter();
        }
        try {
            return holdIf(defaultTtl == null ? lock.tryAcquire() : tryOnceFixed(), defaultTtl);
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(unit.toNanos(time)), defaultTtl);
    }

    /**
     * Waits up to {@code waitTime} (this process's other threads first, then Redis) with a lease of {@code ttl}.
     *
     * @return as {@link #tryLock()}: a reentrant call on a lease found lost returns {@code false} at once
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        long deadline = System.nanoTime() + Math.max(0, waitTime.toNanos());
        if (!local.tryLock(Math.max(0, waitTime.toNanos()), TimeUnit.NANOSECONDS)) {
            return false;
        }
        if (local.getHoldCount() > 1) {
            return reenter();
        }
        try {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            return holdIf(acquire(left, ttl), ttl);
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
        Renewals.Renewal renewing = renewal;
        renewal = null;
        if (renewing != null) {
            renewing.cancel(); // before the release; a run under way at most extends a key the release then deletes
        }
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
     * Sets the lease of the lock the calling thread holds to end {@code ttl} from now, in Redis; scheduled renewals,
     * if any, then extend it by {@code ttl}. With a null {@code ttl}, asks Redis whether the lease still holds it.
     *
     * @throws IllegalStateException if the calling thread does not hold it, or its lease is renewed by the watchdog
     *                               (it never expires while held)
     * @throws LeaseLostException    if the lease was found lost
     */
    void renew(Duration ttl) {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalStateException("lock '" + key + "' is not held by this thread");
        }
        Lease held = lease;
        if (ttl == null) {
            if (!held.confirm()) {
                throw new LeaseLostException("lease of lock '" + key + "' is lost");
            }
            return;
        }
        if (!held.extend(ttl)) {
            throw new LeaseLostException("lease of lock '" + key + "' was found lost when renewed");
        }
        Renewals.Renewal renewing = renewal;
        if (renewing != null && !renewing.ttl.equals(ttl)) {
            renewing.cancel();
            renewal = renewals.start(key, held, ttl);
        }
    }

    /**
     * The lease of the thread that holds the lock, for its fencing token; empty if this thread does not hold it, or
     * holds it with a lease known lost (its outer {@code unlock()} will throw).
     */
    Optional<Lease> leaseOfCurrentThread() {
        Lease held = local.isHeldByCurrentThread() ? lease : null;
        return held != null && held.isHeld() ? Optional.of(held) : Optional.empty();
    }

    boolean heldInThisProcess() {
        return local.isLocked();
    }

    long lastUsed() {
        return lastUsed;
    }

    private boolean holdIf(Optional<Lease> acquired, Duration ttl) {
        touch();
        if (acquired.isEmpty()) {
            local.unlock();
            return false;
        }
        hold(acquired.get(), ttl);
        return true;
    }

    /**
     * Keeps the lease of an outermost acquire and, for a fixed one, starts its renewals if the registry has a
     * scheduler. If they cannot start (the scheduler refused), releases the lease and throws; the caller then
     * undoes the local hold.
     */
    private void hold(Lease acquired, Duration ttl) {
        if (ttl != null) {
            try {
                renewal = renewals.start(key, acquired, ttl);
            } catch (RuntimeException | Error e) {
                try {
                    acquired.close();
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }
        lease = acquired;
    }

    /**
     * A reentrant acquire, with the extra local hold taken: asks Redis whether the lease still holds the lock; if
     * not, or if Redis fails, gives the extra hold back.
     *
     * @return whether the lease holds the lock
     * @throws LockException if Redis fails to answer
     */
    private boolean reenter() {
        boolean held;
        try {
            held = lease.confirm();
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        } finally {
            touch();
        }
        if (!held) {
            local.unlock();
        }
        return held;
    }

    private void reenterOrThrow() {
        if (!reenter()) {
            throw new LeaseLostException("lease of lock '" + key + "' was lost: a reentrant lock cannot take it back;"
                    + " the outer unlock() will throw");
        }
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
