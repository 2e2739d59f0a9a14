package dev.warden.internal;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.Ticker;
import dev.warden.LockException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;

/**
 * The acquire methods of {@link DistributedLock}, in terms of one asynchronous acquisition: blocking waits that
 * honour interrupts, the futures of the async variants, and the {@link Lock} view. A lease that arrives after its
 * caller stopped waiting is given back.
 */
abstract class LockBase implements DistributedLock {
    private volatile LockView view;

    /**
     * Starts an acquisition.
     *
     * @param waitNanos 0 for one try, negative for no limit
     * @param watch     told when the acquisition starts waiting for a release
     * @return completes with the lease, with empty when the wait ran out, or exceptionally on failure; cancelling
     *         it stops the acquisition
     */
    abstract CompletableFuture<Optional<Lease>> start(long waitNanos, long leaseMillis, boolean renewing,
                                                      Events.AcquireWatch watch);

    /** The client's events, for its listener. */
    abstract Events events();

    /** Releases in the background a lease that nobody will use. */
    abstract void abandon(Lease lease);

    /** Names an operation on this lock for error messages. */
    abstract String describe(String operation);

    abstract long defaultLeaseMillis();

    /** The executor that completes the futures of the async methods, off the I/O threads. */
    abstract Executor callbackExecutor();

    /** Decides whether a thread blocked in an acquire spins while its try is in flight. */
    abstract Spinner spinner();

    /** The client's clock, for deadlines. */
    abstract Ticker ticker();

    @Override
    public Optional<Lease> tryAcquire() {
        try {
            return awaitInterruptibly(begin(0, defaultLeaseMillis(), true));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException(describe("acquire") + ": interrupted", e);
        }
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait) throws InterruptedException {
        return awaitInterruptibly(begin(waitNanos(wait), defaultLeaseMillis(), true));
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait, Duration lease) throws InterruptedException {
        long waitNanos = waitNanos(wait);
        long leaseMillis = Require.lease(lease, "lease").toMillis();
        return awaitInterruptibly(begin(waitNanos, leaseMillis, false));
    }

    @Override
    public Lease acquire() throws InterruptedException {
        return awaitInterruptibly(begin(-1, defaultLeaseMillis(), true)).orElseThrow();
    }

    /** Waits for the lock ignoring interrupts, as {@link Lock#lock()} must; the interrupt flag is set again after. */
    Lease acquireUninterruptibly() {
        CompletableFuture<Optional<Lease>> acquisition = begin(-1, defaultLeaseMillis(), true);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return get(acquisition).orElseThrow();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw Errors.translate(e.getCause(), describe("acquire"));
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration wait) {
        CompletableFuture<Optional<Lease>> acquisition = begin(waitNanos(wait), defaultLeaseMillis(), true);
        CompletableFuture<Lease> out = new CompletableFuture<>();
        acquisition.whenCompleteAsync((lease, error) -> {
            if (error != null) {
                out.completeExceptionally(Errors.translate(error, describe("acquire")));
            } else if (lease.isEmpty()) {
                out.completeExceptionally(new TimeoutException("lock '" + name() + "' not acquired within " + wait));
            } else if (!out.complete(lease.get())) {
                abandon(lease.get());
            }
        }, callbackExecutor());
        cancelTogether(out, acquisition);
        return out;
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration wait) {
        CompletableFuture<Optional<Lease>> acquisition = begin(waitNanos(wait), defaultLeaseMillis(), true);
        CompletableFuture<Optional<Lease>> out = new CompletableFuture<>();
        acquisition.whenCompleteAsync((lease, error) -> {
            if (error != null) {
                out.completeExceptionally(Errors.translate(error, describe("acquire")));
            } else if (!out.complete(lease)) {
                lease.ifPresent(this::abandon);
            }
        }, callbackExecutor());
        cancelTogether(out, acquisition);
        return out;
    }

    /** Starts an acquisition, and tells the listener (if any) how it went. */
    private CompletableFuture<Optional<Lease>> begin(long waitNanos, long leaseMillis, boolean renewing) {
        Events events = events();
        if (!events.on()) {
            return start(waitNanos, leaseMillis, renewing, Events.AcquireWatch.NONE);
        }
        Events.AcquireWatch watch = events.watchAcquire(name());
        CompletableFuture<Optional<Lease>> acquisition = start(waitNanos, leaseMillis, renewing, watch);
        // ended() catches what it throws, so this stage cannot fail unobserved.
        acquisition.whenComplete(watch::ended);
        return acquisition;
    }

    @Override
    public boolean isLocked() {
        return inspect().held();
    }

    @Override
    public Lock asLock() {
        LockView current = view;
        if (current == null) {
            synchronized (this) {
                if (view == null) {
                    view = new LockView(this, this::acquireUninterruptibly);
                }
                current = view;
            }
        }
        return current;
    }

    private Optional<Lease> awaitInterruptibly(CompletableFuture<Optional<Lease>> acquisition)
            throws InterruptedException {
        try {
            return get(acquisition);
        } catch (InterruptedException e) {
            if (!acquisition.cancel(false)) {
                // The lease arrived together with the interrupt: nobody will see it, so give it back.
                acquisition.getNow(Optional.empty()).ifPresent(this::abandon);
            }
            throw e;
        } catch (ExecutionException e) {
            throw Errors.translate(e.getCause(), describe("acquire"));
        }
    }

    /** Waits for an acquisition; spins first while its try is in flight, if the {@link Spinner} allows it. */
    private Optional<Lease> get(CompletableFuture<Optional<Lease>> acquisition)
            throws InterruptedException, ExecutionException {
        if (acquisition.isDone()) {
            return acquisition.get();
        }
        Spinner spinner = spinner();
        spinner.enter();
        try {
            if (acquisition instanceof DueFuture<?> due) {
                spinner.spin(acquisition, System.nanoTime(), due::isDue);
            }
            return acquisition.get();
        } finally {
            spinner.exit();
        }
    }

    private static void cancelTogether(CompletableFuture<?> out, CompletableFuture<Optional<Lease>> acquisition) {
        out.whenComplete((value, error) -> {
            if (out.isCancelled()) {
                acquisition.cancel(false);
            }
        });
    }

    static long waitNanos(Duration wait) {
        Require.wait(wait, "wait");
        try {
            return wait.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }
}
