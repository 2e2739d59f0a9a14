package dev.warden.internal.multi;

import dev.warden.Lease;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Futures;
import dev.warden.internal.lease.LockBase;
import dev.warden.internal.lease.Phase;
import dev.warden.internal.lock.LockContext;
import dev.warden.internal.lock.RedisLease;
import dev.warden.internal.lock.RedisLock;
import dev.warden.internal.script.LockKeys;
import dev.warden.internal.wire.InFlight;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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
    /**
     * Where it stands: {@link Phase#IDLE} before it starts, {@link Phase#TRYING} while it takes the parts (one script
     * for all of them, or each in order), {@link Phase#GRANTED} once every part is held and the lease made; changed
     * only by {@link #move}. It is over once {@link #result} is done, whatever the phase. Guarded by this.
     */
    private Phase phase = Phase.IDLE;
    /** Data of {@link Phase#TRYING}: the parts' leases so far, by part. Guarded by this. */
    private final List<Lease> held = new ArrayList<>();
    /** Data of {@link Phase#TRYING}: the acquisition of the part being taken, if any. Guarded by this. */
    private CompletableFuture<Optional<Lease>> current;

    /** @param waitNanos 0 for one try of each part, negative for no limit */
    MultiAcquisition(MultiLock lock, List<LockBase> parts, long waitNanos, long leaseMillis, boolean renewing) {
        this.lock = lock;
        this.parts = parts;
        this.waitNanos = waitNanos;
        this.deadline = lock.ticker().read() + Math.max(waitNanos, 0);
        this.leaseMillis = leaseMillis;
        this.renewing = renewing;
    }

    CompletableFuture<Optional<Lease>> start() {
        synchronized (this) {
            move(Phase.TRYING);
        }
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
        List<RedisLock> together = lock.oneScript();
        if (together == null) {
            take(0);
        } else {
            takeTogether(together);
        }
        return result;
    }

    /**
     * The first try where one script can take every part: all at once, in one round trip. If one is held or has
     * waiters, and the acquire may wait, the parts are taken one by one in order, waiting in their queues.
     */
    private void takeTogether(List<RedisLock> locks) {
        LockContext context = locks.get(0).context();
        List<LockKeys> keys = new ArrayList<>(locks.size());
        List<String> tokens = new ArrayList<>(locks.size());
        for (RedisLock part : locks) {
            keys.add(part.keys());
            tokens.add(context.newToken());
        }
        long sentAt = context.ticker().read();
        context.inFlight().send(InFlight.Kind.WORK, () -> context.scripts().multiAcquire(keys, tokens, leaseMillis,
                false), (reply, error) -> {
                    if (error != null) {
                        // The script may have run without an answer: release by token, so that nothing is left held.
                        for (int i = 0; i < locks.size(); i++) {
                            RedisLock part = locks.get(i);
                            String token = tokens.get(i);
                            context.inFlight().sendCleanupThen(part.name(), "clean-up", () -> part.release(token),
                                    () -> { });
                        }
                        result.completeExceptionally(error);
                    } else if (reply.acquired()) {
                        synchronized (this) {
                            for (int i = 0; i < locks.size(); i++) {
                                RedisLease lease = new RedisLease(locks.get(i), context, tokens.get(i),
                                        reply.fences()[i], leaseMillis, renewing, sentAt, 0, leaseMillis, null);
                                context.watchdog().register(lease);
                                held.add(lease);
                            }
                        }
                        take(locks.size());
                    } else if (waitNanos == 0) {
                        result.complete(Optional.empty()); // nothing was taken
                    } else if (!result.isDone()) {
                        take(0);
                    }
                }, result::completeExceptionally);
    }

    /** Takes part {@code index}, or makes the lease when all are held. */
    private void take(int index) {
        if (index == parts.size()) {
            List<Lease> leases;
            synchronized (this) {
                move(Phase.GRANTED);
                leases = List.copyOf(held);
                current = null;
            }
            RedisMultiLease lease = new RedisMultiLease(lock, leases);
            // A lease that arrives after its acquire was cancelled: the cancelled caller was told nothing is held.
            if (!result.complete(Optional.of(lease))) {
                lease.abandon();
            }
            return;
        }
        long left = waitNanos < 0 ? -1 : Math.max(deadline - lock.ticker().read(), 0);
        CompletableFuture<Optional<Lease>> part;
        try {
            part = parts.get(index).start(left, leaseMillis, renewing, Events.AcquireWatch.NONE);
        } catch (RuntimeException e) {
            endWithout(e);
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
                endWithout(error);
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

    /**
     * The one place where the phase changes. Guarded by this.
     *
     * @throws IllegalStateException for a move the protocol never makes (a second lease of one acquire): a bug,
     *                               which fails the acquire loudly
     */
    private void move(Phase next) {
        phase = phase.to(next, lock.describe("acquire"));
    }

    /**
     * Releases the parts held so far.
     *
     * @return completes when their releases have ended, successfully or not (a failed one is logged, and expires)
     */
    private CompletableFuture<Boolean> giveBack() {
        List<Lease> leases;
        synchronized (this) {
            leases = new ArrayList<>(held);
            held.clear();
        }
        return lock.giveBack(leases);
    }

    /**
     * Ends the acquire without a lease: empty, or failed with {@code error}, once the parts held so far are
     * released, so that "not acquired" means that nothing of it is held any more ("all or none"). A part that could
     * not be released (Redis failed) expires with its lease, and is logged.
     */
    private void endWithout(Throwable error) {
        giveBack().whenComplete((released, ignored) -> {
            if (error != null) {
                result.completeExceptionally(error);
            } else {
                result.complete(Optional.empty());
            }
        });
    }
}
