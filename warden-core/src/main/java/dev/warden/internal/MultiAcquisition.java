package dev.warden.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.warden.Lease;

/**
 * One acquire of a multi-lock: each part in order, within what is left of the wait; when a part is not acquired in
 * time, or fails, or the acquire is cancelled, the parts already held are given back and nothing is left behind.
 * {@link #result} completes with the {@link RedisMultiLease}, with empty, or exceptionally.
 */
final class MultiAcquisition {
    private final CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
    private final MultiLock lock;
    private final List<LockBase> parts;
    private final long waitNanos;
    private final long deadline;
    private final long leaseMillis;
    private final boolean renewing;
    /** The parts' leases so far, by part. Guarded by this. */
    private final List<Lease> held = new ArrayList<>();
    /** The acquisition of the part being taken, if any. Guarded by this. */
    private CompletableFuture<Optional<Lease>> current;

    /** @param waitNanos 0 for one try of each part, negative for no limit */
    MultiAcquisition(MultiLock lock, List<LockBase> parts, long waitNanos, long leaseMillis, boolean renewing) {
        this.lock = lock;
        this.parts = parts;
        this.waitNanos = waitNanos;
        this.deadline = System.nanoTime() + Math.max(waitNanos, 0);
        this.leaseMillis = leaseMillis;
        this.renewing = renewing;
    }

    CompletableFuture<Optional<Lease>> start() {
        Futures.whenDone(result, (lease, error) -> {
            if (result.isCancelled()) {
                CompletableFuture<Optional<Lease>> taking;
                synchronized (this) {
                    taking = current;
                }
                if (taking != null) {
                    // A part granted at this moment is released by its own acquisition.
                    taking.cancel(false);
                }
                giveBack();
            }
        }, "the end of an acquire", lock.name());
        take(0);
        return result;
    }

    /** Takes part {@code index}, or makes the lease when all are held. */
    private void take(int index) {
        if (index == parts.size()) {
            List<Lease> leases;
            synchronized (this) {
                leases = List.copyOf(held);
            }
            RedisMultiLease lease = new RedisMultiLease(lock, leases);
            if (!result.complete(Optional.of(lease))) {
                lease.abandon();
            }
            return;
        }
        long left = waitNanos < 0 ? -1 : Math.max(deadline - System.nanoTime(), 0);
        CompletableFuture<Optional<Lease>> part;
        try {
            part = parts.get(index).start(left, leaseMillis, renewing, Events.AcquireWatch.NONE);
        } catch (RuntimeException e) {
            giveBack();
            result.completeExceptionally(e);
            return;
        }
        synchronized (this) {
            current = part;
        }
        if (result.isDone()) {
            part.cancel(false);
        }
        Futures.whenDone(part, (lease, error) -> {
            if (error != null || lease.isEmpty()) {
                giveBack();
                if (error != null) {
                    result.completeExceptionally(error);
                } else {
                    result.complete(Optional.empty());
                }
                return;
            }
            boolean over;
            synchronized (this) {
                held.add(lease.get());
                current = null;
                over = result.isDone();
            }
            if (over) {
                giveBack();
            } else {
                take(index + 1);
            }
        }, "taking a part of a multi-lock", lock.name());
    }

    /** Releases, in the background, the parts held so far. */
    private void giveBack() {
        List<Lease> leases;
        synchronized (this) {
            leases = new ArrayList<>(held);
            held.clear();
        }
        for (int i = 0; i < leases.size(); i++) {
            lock.abandon(i, leases.get(i));
        }
    }
}
