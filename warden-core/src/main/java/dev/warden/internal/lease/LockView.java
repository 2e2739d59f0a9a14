package dev.warden.internal.lease;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LeaseLostException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

/**
 * A {@link Lock} over one distributed lock: reentrant per thread, with the hold count kept locally over a single
 * renewed lease. The count never answers for the lease: every reentrant acquire asks Redis ({@link Lease#confirm()})
 * and fails with {@link LeaseLostException} if the lease is gone, leaving the count as it was so that the caller's
 * unlocks still balance; the last of them throws {@link LeaseLostException} too.
 */
final class LockView implements Lock {
    private final DistributedLock lock;
    private final Supplier<Lease> uninterruptibly;
    private final ConcurrentHashMap<Thread, Hold> holds = new ConcurrentHashMap<>();

    /** One thread's hold; only that thread changes its count. */
    private static final class Hold {
        final Lease lease;
        int count = 1;

        Hold(Lease lease) {
            this.lease = lease;
        }
    }

    /**
     * @param uninterruptibly acquires like {@link DistributedLock#acquire()} but ignores interrupts, setting the
     *                        flag again afterwards, as {@link Lock#lock()} must
     */
    LockView(DistributedLock lock, Supplier<Lease> uninterruptibly) {
        this.lock = lock;
        this.uninterruptibly = uninterruptibly;
    }

    @Override
    public void lock() {
        if (!reenter()) {
            hold(uninterruptibly.get());
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (!reenter()) {
            hold(lock.acquire());
        }
    }

    @Override
    public boolean tryLock() {
        if (reenter()) {
            return true;
        }
        Optional<Lease> lease = lock.tryAcquire();
        lease.ifPresent(this::hold);
        return lease.isPresent();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (reenter()) {
            return true;
        }
        Optional<Lease> lease = lock.tryAcquire(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
        lease.ifPresent(this::hold);
        return lease.isPresent();
    }

    @Override
    public void unlock() {
        Thread current = Thread.currentThread();
        Hold hold = holds.get(current);
        if (hold == null) {
            throw new IllegalMonitorStateException(
                    "thread " + current.getName() + " does not hold lock '" + lock.name() + "'");
        }
        if (--hold.count > 0) {
            return;
        }
        holds.remove(current);
        if (!hold.lease.release()) {
            throw new LeaseLostException("lease of lock '" + lock.name() + "' was lost before unlock: the critical "
                    + "section may not have been exclusive");
        }
    }

    /** Not supported: a distributed lock has no condition queues. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("conditions are not supported by distributed locks");
    }

    /**
     * Counts one more hold of the calling thread, if it holds the lock, once Redis confirmed that its lease still
     * holds it.
     *
     * @return false if the calling thread does not hold the lock
     * @throws LeaseLostException if its lease was lost (known here, or found so by Redis)
     */
    private boolean reenter() {
        Hold hold = holds.get(Thread.currentThread());
        if (hold == null) {
            return false;
        }
        if (!hold.lease.confirm()) {
            throw new LeaseLostException("lock '" + lock.name() + "': the lease this thread holds it by was lost "
                    + "(expired, or taken by an administrator's forced release or a server that lost its data): "
                    + "the reentrant acquire is refused, and what the lock protects may have been changed by "
                    + "another holder. Each earlier acquire still needs its unlock; the last one throws this too");
        }
        hold.count++;
        return true;
    }

    private void hold(Lease lease) {
        holds.put(Thread.currentThread(), new Hold(lease));
    }
}
