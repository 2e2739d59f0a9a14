package dev.warden.faults;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LeaseLostException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A mutant for the checker: the {@code Lock} view as Warden's {@code asLock()} was before issue #39, reentrant per
 * thread with the hold count kept locally over one renewed lease. A reentrant {@code tryLock()} returns true at once,
 * even when the lease under it was lost (forced off by an administrator, or expired during a stall) and another
 * client holds the lock. Only {@code tryLock} and {@code unlock}, which the fault runs use.
 */
final class TrustingLockView implements Lock {
    private final DistributedLock lock;
    private final ConcurrentHashMap<Thread, Hold> holds = new ConcurrentHashMap<>();

    private static final class Hold {
        final Lease lease;
        int count = 1;

        Hold(Lease lease) {
            this.lease = lease;
        }
    }

    TrustingLockView(DistributedLock lock) {
        this.lock = lock;
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
        if (reenter()) {
            return true;
        }
        Optional<Lease> lease = lock.tryAcquire(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
        lease.ifPresent(this::hold);
        return lease.isPresent();
    }

    @Override
    public void unlock() {
        Hold hold = holds.get(Thread.currentThread());
        if (hold == null) {
            throw new IllegalMonitorStateException("not held by this thread");
        }
        if (--hold.count > 0) {
            return;
        }
        holds.remove(Thread.currentThread());
        if (!hold.lease.release()) {
            throw new LeaseLostException("lease of lock '" + lock.name() + "' was lost before unlock");
        }
    }

    /** The flaw: the local count alone says "held". */
    private boolean reenter() {
        Hold hold = holds.get(Thread.currentThread());
        if (hold == null) {
            return false;
        }
        hold.count++;
        return true;
    }

    private void hold(Lease lease) {
        holds.put(Thread.currentThread(), new Hold(lease));
    }

    @Override
    public void lock() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void lockInterruptibly() {
        throw new UnsupportedOperationException();
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException();
    }
}
