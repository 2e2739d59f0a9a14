package dev.warden.micrometer;

import dev.warden.Acquirable;
import dev.warden.Lease;
import dev.warden.LockInfo;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock or multi-lock whose acquire calls are observations; every other call goes straight to the one it wraps.
 *
 * @param <L> the lease its acquires return
 * @param <A> the kind of lock it wraps
 */
abstract class Observed<L extends Lease, A extends Acquirable<L>> implements Acquirable<L> {
    static final String NAME = "warden.lock.acquire";
    private static final Logger LOG = LoggerFactory.getLogger(Observed.class);

    final A lock;
    final ObservationRegistry registry;
    final Function<String, String> lockTag;

    Observed(A lock, ObservationRegistry registry, Function<String, String> lockTag) {
        this.lock = lock;
        this.registry = registry;
        this.lockTag = lockTag;
    }

    /** An acquire that blocks the calling thread. */
    private interface Blocking<T, E extends Exception> {
        T call() throws E;
    }

    private <T, E extends Exception> T observe(Blocking<T, E> call) throws E {
        Observation observation = start();
        try (Observation.Scope scope = observation.openScope()) {
            T result = call.call();
            observation.lowCardinalityKeyValue("outcome", outcome(result));
            return result;
        } catch (Exception e) {
            // An interrupt is the caller giving up, as an acquire's cancelled future is.
            observation.lowCardinalityKeyValue("outcome", e instanceof InterruptedException ? "not_acquired" : "failed");
            observation.error(e);
            throw e;
        } finally {
            observation.stop();
        }
    }

    private <T> CompletableFuture<T> observeAsync(Function<A, CompletableFuture<T>> call) {
        Observation observation = start();
        CompletableFuture<T> result;
        try (Observation.Scope scope = observation.openScope()) {
            result = call.apply(lock);
        } catch (RuntimeException e) {
            observation.lowCardinalityKeyValue("outcome", "failed").error(e).stop();
            throw e;
        }
        // The caller gets the lock's own future, so that cancelling it stops the acquisition; this stage cannot
        // fail but through the observation's handlers, which are logged.
        result.whenComplete((value, error) -> {
            try {
                if (error != null) {
                    // acquireAsync's wait that ran out, or a cancelled future: the lock was not acquired.
                    boolean gaveUp = error instanceof CancellationException || error instanceof TimeoutException;
                    observation.lowCardinalityKeyValue("outcome", gaveUp ? "not_acquired" : "failed");
                    observation.error(error);
                } else {
                    observation.lowCardinalityKeyValue("outcome", outcome(value));
                }
                observation.stop();
            } catch (RuntimeException e) {
                LOG.warn("observation of an acquire of lock '{}' failed", lock.name(), e);
            }
        });
        return result;
    }

    private Observation start() {
        String tag = lockTag.apply(lock.name());
        Observation observation = Observation.createNotStarted(NAME, registry)
                .contextualName("acquire " + (tag == null ? "lock" : tag))
                .highCardinalityKeyValue("lock.name", lock.name());
        if (tag != null) {
            observation.lowCardinalityKeyValue("lock", tag);
        }
        return observation.start();
    }

    private static String outcome(Object result) {
        return result instanceof Optional<?> optional && optional.isEmpty() ? "not_acquired" : "acquired";
    }

    @Override
    public String name() {
        return lock.name();
    }

    @Override
    public Optional<L> tryAcquire() {
        return observe(lock::tryAcquire);
    }

    @Override
    public Optional<L> tryAcquire(Duration wait) throws InterruptedException {
        return observe(() -> lock.tryAcquire(wait));
    }

    @Override
    public Optional<L> tryAcquire(Duration wait, Duration lease) throws InterruptedException {
        return observe(() -> lock.tryAcquire(wait, lease));
    }

    @Override
    public L acquire() throws InterruptedException {
        return observe(lock::acquire);
    }

    @Override
    public CompletableFuture<L> acquireAsync(Duration wait) {
        return observeAsync(l -> l.acquireAsync(wait));
    }

    @Override
    public CompletableFuture<Optional<L>> tryAcquireAsync(Duration wait) {
        return observeAsync(l -> l.tryAcquireAsync(wait));
    }

    @Override
    public CompletableFuture<Optional<L>> tryAcquireAsync() {
        return observeAsync(Acquirable::tryAcquireAsync);
    }

    @Override
    public CompletableFuture<Optional<L>> tryAcquireAsync(Duration wait, Duration lease) {
        return observeAsync(l -> l.tryAcquireAsync(wait, lease));
    }

    @Override
    public CompletableFuture<L> acquireAsync() {
        return observeAsync(Acquirable::acquireAsync);
    }

    @Override
    public boolean isLocked() {
        return lock.isLocked();
    }

    @Override
    public LockInfo inspect() {
        return lock.inspect();
    }

    @Override
    public OptionalLong forceRelease() {
        return lock.forceRelease();
    }

    @Override
    public CompletableFuture<LockInfo> inspectAsync() {
        return lock.inspectAsync();
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        return lock.isLockedAsync();
    }

    @Override
    public CompletableFuture<OptionalLong> forceReleaseAsync() {
        return lock.forceReleaseAsync();
    }

    @Override
    public Lock asLock() {
        return lock.asLock();
    }

    @Override
    public String toString() {
        return "Observed" + lock;
    }
}
