package dev.warden.internal;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockException;
import dev.warden.LockInfo;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;

/** A named lock of one client. Stateless apart from its {@link Lock} view. */
final class RedisLock implements DistributedLock {
    private final RedisLockClient client;
    private final String name;
    private final LockKeys keys;
    private volatile LockView view;

    RedisLock(RedisLockClient client, String name) {
        this.client = client;
        this.name = name;
        this.keys = LockKeys.of(client.config().keyPrefix(), name);
    }

    @Override
    public String name() {
        return name;
    }

    LockKeys keys() {
        return keys;
    }

    /** Names an operation on this lock for error messages, with its key. */
    String describe(String operation) {
        return operation + " of lock '" + name + "' (key " + keys.lock() + ")";
    }

    RedisLockClient client() {
        return client;
    }

    @Override
    public Optional<Lease> tryAcquire() {
        Acquisition acquisition = start(0, defaultLeaseMillis(), true);
        try {
            return awaitInterruptibly(acquisition);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException(describe("acquire") + ": interrupted", e);
        }
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait) throws InterruptedException {
        return awaitInterruptibly(start(waitNanos(wait), defaultLeaseMillis(), true));
    }

    @Override
    public Optional<Lease> tryAcquire(Duration wait, Duration lease) throws InterruptedException {
        long waitNanos = waitNanos(wait);
        long leaseMillis = Require.lease(lease, "lease").toMillis();
        return awaitInterruptibly(start(waitNanos, leaseMillis, false));
    }

    @Override
    public Lease acquire() throws InterruptedException {
        return awaitInterruptibly(start(-1, defaultLeaseMillis(), true)).orElseThrow();
    }

    /** Waits for the lock ignoring interrupts, as {@link Lock#lock()} must; the interrupt flag is set again after. */
    Lease acquireUninterruptibly() {
        Acquisition acquisition = start(-1, defaultLeaseMillis(), true);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return acquisition.result.get().orElseThrow();
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
        Acquisition acquisition = start(waitNanos(wait), defaultLeaseMillis(), true);
        CompletableFuture<Lease> out = new CompletableFuture<>();
        acquisition.result.whenCompleteAsync((lease, error) -> {
            if (error != null) {
                out.completeExceptionally(Errors.translate(error, describe("acquire")));
            } else if (lease.isEmpty()) {
                out.completeExceptionally(new TimeoutException("lock '" + name + "' not acquired within " + wait));
            } else if (!out.complete(lease.get())) {
                ((RedisLease) lease.get()).abandon();
            }
        }, client.callbackExecutor());
        cancelTogether(out, acquisition);
        return out;
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration wait) {
        Acquisition acquisition = start(waitNanos(wait), defaultLeaseMillis(), true);
        CompletableFuture<Optional<Lease>> out = new CompletableFuture<>();
        acquisition.result.whenCompleteAsync((lease, error) -> {
            if (error != null) {
                out.completeExceptionally(Errors.translate(error, describe("acquire")));
            } else if (!out.complete(lease)) {
                lease.ifPresent(l -> ((RedisLease) l).abandon());
            }
        }, client.callbackExecutor());
        cancelTogether(out, acquisition);
        return out;
    }

    @Override
    public boolean isLocked() {
        return inspect().held();
    }

    @Override
    public LockInfo inspect() {
        List<Object> reply = client.await(client.scripts().inspect(keys), describe("inspect"));
        return new LockInfo(name, (Long) reply.get(0) == 1L, Duration.ofMillis((Long) reply.get(1)),
                (Long) reply.get(2), ((Long) reply.get(3)).intValue());
    }

    @Override
    public OptionalLong forceRelease() {
        long fence = client.await(client.scripts().forceRelease(keys, client.instanceId()),
                describe("forced release"));
        client.notifier().wakeOne(keys.channel());
        return fence == 0 ? OptionalLong.empty() : OptionalLong.of(fence);
    }

    @Override
    public Lock asLock() {
        LockView current = view;
        if (current == null) {
            synchronized (this) {
                if (view == null) {
                    view = new LockView(this);
                }
                current = view;
            }
        }
        return current;
    }

    @Override
    public String toString() {
        return "DistributedLock{" + name + "}";
    }

    private Acquisition start(long waitNanos, long leaseMillis, boolean renewing) {
        return new Acquisition(this, waitNanos, leaseMillis, renewing).start();
    }

    private Optional<Lease> awaitInterruptibly(Acquisition acquisition) throws InterruptedException {
        try {
            return acquisition.result.get();
        } catch (InterruptedException e) {
            if (!acquisition.result.cancel(false)) {
                // The lease arrived together with the interrupt: nobody will see it, so give it back.
                acquisition.result.getNow(Optional.empty()).ifPresent(lease -> ((RedisLease) lease).abandon());
            }
            throw e;
        } catch (ExecutionException e) {
            throw Errors.translate(e.getCause(), describe("acquire"));
        }
    }

    private static void cancelTogether(CompletableFuture<?> out, Acquisition acquisition) {
        out.whenComplete((value, error) -> {
            if (out.isCancelled()) {
                acquisition.result.cancel(false);
            }
        });
    }

    private long defaultLeaseMillis() {
        return client.config().defaultLease().toMillis();
    }

    private static long waitNanos(Duration wait) {
        Require.wait(wait, "wait");
        try {
            return wait.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }
}
