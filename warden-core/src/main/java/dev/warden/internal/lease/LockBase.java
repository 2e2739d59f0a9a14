package dev.warden.internal.lease;

import java.util.OptionalLong;
import dev.warden.internal.base.Futures;
import dev.warden.LockInfo;
import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockException;
import dev.warden.Ticker;
import dev.warden.internal.base.DueFuture;
import dev.warden.internal.base.Errors;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Require;
import dev.warden.internal.base.Spinner;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;
import java.util.function.BiConsumer;

/**
 * The acquire methods of {@link DistributedLock}, in terms of one asynchronous acquisition: blocking waits that
 * honour interrupts, the futures of the async variants, and the {@link Lock} view. A lease that arrives after its
 * caller stopped waiting is given back.
 */
public abstract class LockBase implements DistributedLock {
    private volatile LockView view;

    /**
     * Starts an acquisition.
     *
     * @param waitNanos 0 for one try, negative for no limit
     * @param watch     told when the acquisition starts waiting for a release
     * @return completes with the lease, with empty when the wait ran out, or exceptionally on failure; cancelling
     *         it stops the acquisition
     */
    public abstract CompletableFuture<Optional<Lease>> start(long waitNanos, long leaseMillis, boolean renewing,
                                                      Events.AcquireWatch watch);

    /** What the client gave this kind of lock to work with. */
    public abstract Context context();

    /** The client's events, for its listener. */
    public Events events() {
        return context().events();
    }

    /**
     * Releases in the background a lease that nobody will use.
     *
     * @return completes when the release has ended: with whether it released the lease
     */
    public abstract CompletableFuture<Boolean> abandon(Lease lease);

    /**
     * The leases that this client's threads hold by blocking acquires, for the self-wait check; null for a kind that
     * checks by its own rules (a read-write lock's halves, a semaphore's permits).
     */
    public abstract ThreadHolds threadHolds();

    /** The names of the locks this one takes: its own, or a multi-lock's parts. */
    public List<String> lockNames() {
        return List.of(name());
    }

    /** Names an operation on this lock for error messages. */
    public abstract String describe(String operation);

    /** The lease of the acquire methods that take none: the client's default. */
    public long defaultLeaseMillis() {
        return context().config().defaultLease().toMillis();
    }

    /** The executor that completes the futures of the async methods, off the I/O threads. */
    public Executor callbackExecutor() {
        return context().callbackExecutor();
    }

    /** Decides whether a thread blocked in an acquire spins while its try is in flight. */
    public Spinner spinner() {
        return context().spinner();
    }

    /** Reads the lock's state once, counted in flight: what {@link #inspect()} answers. */
    public abstract CompletableFuture<LockInfo> inspectRequest();

    /** Removes the lock's holders once, counted in flight: what {@link #forceRelease()} answers. */
    public abstract CompletableFuture<OptionalLong> forceReleaseRequest();

    @Override
    public LockInfo inspect() {
        return context().await(inspectRequest(), describe("inspect"));
    }

    @Override
    public CompletableFuture<LockInfo> inspectAsync() {
        return Futures.publish(this::inspectRequest, callbackExecutor(), describe("inspect"));
    }

    @Override
    public OptionalLong forceRelease() {
        return context().await(forceReleaseRequest(), describe("forced release"));
    }

    @Override
    public CompletableFuture<OptionalLong> forceReleaseAsync() {
        return Futures.publish(this::forceReleaseRequest, callbackExecutor(), describe("forced release"));
    }

    /** The client's clock, for deadlines. */
    public Ticker ticker() {
        return context().ticker();
    }

    @Override
    public Optional<Lease> tryAcquire() {
        try {
            return blocking(0, defaultLeaseMillis(), true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException(describe("acquire") + ": interrupted", e);
        }
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait) throws InterruptedException {
        return blocking(waitNanos(wait), defaultLeaseMillis(), true);
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait, Duration lease) throws InterruptedException {
        long waitNanos = waitNanos(wait);
        long leaseMillis = Require.lease(lease, "lease").toMillis();
        return blocking(waitNanos, leaseMillis, false);
    }

    @Override
    public Lease acquire() throws InterruptedException {
        return blocking(-1, defaultLeaseMillis(), true).orElseThrow();
    }

    /**
     * A blocking acquire on the calling thread: one that would wait is refused at once if the thread holds this lock
     * already by a blocking acquire (it would wait for itself; a single try just finds it held), and the lease it
     * gets is counted as the thread's.
     */
    private Optional<Lease> blocking(long waitNanos, long leaseMillis, boolean renewing) throws InterruptedException {
        ThreadHolds holds = threadHolds();
        if (holds != null && waitNanos != 0) {
            holds.refuseSelfWait(lockNames(), this::describe);
        }
        Optional<Lease> lease = awaitInterruptibly(begin(waitNanos, leaseMillis, renewing));
        if (holds != null && lease.isPresent()) {
            holds.add(lockNames(), lease.get());
        }
        return lease;
    }

    /** Waits for the lock ignoring interrupts, as {@link Lock#lock()} must; the interrupt flag is set again after. */
    Lease acquireUninterruptibly() {
        ThreadHolds holds = threadHolds();
        if (holds != null) {
            holds.refuseSelfWait(lockNames(), this::describe);
        }
        CompletableFuture<Optional<Lease>> acquisition = begin(-1, defaultLeaseMillis(), true);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    Lease lease = get(acquisition).orElseThrow();
                    if (holds != null) {
                        holds.add(lockNames(), lease);
                    }
                    return lease;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw Errors.forCaller(e.getCause(), describe("acquire"));
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
        long waitNanos = waitNanos(wait);
        return async(waitNanos, defaultLeaseMillis(), true, (lease, out) -> {
            if (lease.isEmpty()) {
                out.completeExceptionally(new TimeoutException("lock '" + name() + "' not acquired within " + wait));
            } else if (!out.complete(lease.get())) {
                abandon(lease.get());
            }
        });
    }

    @Override
    public CompletableFuture<Lease> acquireAsync() {
        return async(-1, defaultLeaseMillis(), true, (lease, out) -> {
            if (!out.complete(lease.orElseThrow())) {
                abandon(lease.get());
            }
        });
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration wait) {
        return tryAsync(waitNanos(wait), defaultLeaseMillis(), true);
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync() {
        return tryAsync(0, defaultLeaseMillis(), true);
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration wait, Duration lease) {
        long waitNanos = waitNanos(wait);
        long leaseMillis = Require.lease(lease, "lease").toMillis();
        return tryAsync(waitNanos, leaseMillis, false);
    }

    private CompletableFuture<Optional<Lease>> tryAsync(long waitNanos, long leaseMillis, boolean renewing) {
        return async(waitNanos, leaseMillis, renewing, (lease, out) -> {
            if (!out.complete(lease)) {
                lease.ifPresent(this::abandon);
            }
        });
    }

    /**
     * The future of an asynchronous acquire: completed off the I/O threads on the client's callback executor, or,
     * once that has shut down (the client closed), on the thread that ended the acquisition, so that it always
     * completes. What the start refuses (a closed client, an upgrade of a read lock) fails it rather than being
     * thrown; cancelling it cancels the acquisition, and a lease that arrives after it ended is given back.
     *
     * @param done completes {@code out} from the acquisition's result, and gives back a lease it cannot hand over
     */
    private <T> CompletableFuture<T> async(long waitNanos, long leaseMillis, boolean renewing,
                                           BiConsumer<Optional<Lease>, CompletableFuture<T>> done) {
        CompletableFuture<T> out = new CompletableFuture<>();
        CompletableFuture<Optional<Lease>> acquisition;
        try {
            acquisition = begin(waitNanos, leaseMillis, renewing);
        } catch (RuntimeException e) {
            out.completeExceptionally(Errors.forCaller(e, describe("acquire")));
            return out;
        }
        acquisition.whenComplete((lease, error) -> {
            Runnable complete = () -> {
                try {
                    if (error != null) {
                        out.completeExceptionally(Errors.forCaller(error, describe("acquire")));
                    } else {
                        done.accept(lease, out);
                    }
                } catch (RuntimeException | Error e) {
                    out.completeExceptionally(e);
                    lease.ifPresent(this::abandon);
                }
            };
            try {
                callbackExecutor().execute(complete);
            } catch (RejectedExecutionException e) {
                complete.run();
            }
        });
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
            throw Errors.forCaller(e.getCause(), describe("acquire"));
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
