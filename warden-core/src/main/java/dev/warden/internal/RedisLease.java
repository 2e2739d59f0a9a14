package dev.warden.internal;

import dev.warden.Lease;
import dev.warden.LockException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A lease on one lock: HELD until released or lost, then never again. */
final class RedisLease implements Lease {
    private static final Logger LOG = LoggerFactory.getLogger(RedisLease.class);
    private static final int HELD = 0;
    private static final int RELEASING = 1;
    private static final int RELEASED = 2;
    private static final int LOST = 3;
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final RedisLock lock;
    final LockKeys keys;
    final String token;
    final long leaseMillis;
    final boolean renewing;
    final Replicas replicas;
    private final long fence;
    private final int acks;
    private final long leaseNanos;
    private final long driftNanos;
    private final AtomicInteger state = new AtomicInteger(HELD);
    private volatile long deadline;
    private List<Runnable> callbacks;

    // Owned by the watchdog, guarded by its lock.
    long nextRenewAt;
    boolean renewalInFlight;

    /**
     * @param sentAt when the acquire request that won the lock was sent: the lease started no earlier
     */
    RedisLease(RedisLock lock, String token, long fence, long leaseMillis, boolean renewing, long sentAt, int acks) {
        this.lock = lock;
        this.replicas = lock.replicas();
        this.acks = acks;
        this.keys = lock.keys();
        this.token = token;
        this.fence = fence;
        this.leaseMillis = leaseMillis;
        this.renewing = renewing;
        this.leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        // Clock-rate drift between this machine and Redis: 1 % of the lease plus 2 ms, as Redlock does.
        this.driftNanos = leaseNanos / 100 + TimeUnit.MILLISECONDS.toNanos(2);
        this.deadline = sentAt + leaseNanos - driftNanos;
        this.nextRenewAt = sentAt + leaseNanos / 3;
    }

    @Override
    public String lockName() {
        return lock.name();
    }

    @Override
    public long fencingToken() {
        return fence;
    }

    @Override
    public int acknowledgements() {
        return acks;
    }

    @Override
    public boolean isHeld() {
        return state.get() == HELD && lock.client().ticker().read() - deadline < 0;
    }

    @Override
    public Duration remaining() {
        long left = deadline - lock.client().ticker().read();
        return state.get() == HELD && left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    @Override
    public void onLost(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        synchronized (this) {
            if (state.get() != LOST) {
                if (callbacks == null) {
                    callbacks = new ArrayList<>(1);
                }
                callbacks.add(callback);
                return;
            }
        }
        callback.run();
    }

    @Override
    public boolean release() {
        if (!state.compareAndSet(HELD, RELEASING)) {
            return false;
        }
        RedisLockClient client = lock.client();
        client.watchdog().unregister(this);
        // A waiter of this client heads the queue: the release script may hand it the lock directly, saving its
        // acquire round trip, unless another client waits too.
        Notifier.Candidate next = client.notifier().reserveHead(keys.channel());
        long sentAt = client.ticker().read();
        List<Object> reply;
        try {
            reply = client.await(next == null
                    ? client.scripts().release(keys, token, client.instanceId())
                    : client.scripts().releaseTo(keys, token, client.instanceId(), next.waiter().token(),
                            next.waiter().leaseMillis(), next.queued()), lock.describe("release"));
        } catch (LockException e) {
            state.set(RELEASED);
            if (next != null) {
                next.waiter().unreserve();
            }
            throw e;
        }
        long status = (Long) reply.get(0);
        if (status == 2L) {
            state.set(RELEASED);
            next.waiter().granted((Long) reply.get(1), sentAt);
            return true;
        }
        if (status == 1L) {
            state.set(RELEASED);
        } else {
            lose("it was found expired or taken on release");
        }
        if (next != null) {
            next.waiter().unreserve();
        } else {
            client.notifier().wakeOne(keys.channel());
        }
        return status == 1L;
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "Lease{lock=" + lock.name() + ", fence=" + fence + ", held=" + isHeld() + "}";
    }

    /**
     * Releases in the background a lease nobody will use any more: one granted to a cancelled acquire, or one
     * still held when the client closes. A failure is logged, since nobody is left to tell; the lock then expires
     * at the end of its lease.
     */
    CompletableFuture<Void> abandon() {
        if (!state.compareAndSet(HELD, RELEASING)) {
            return CompletableFuture.completedFuture(null);
        }
        lock.client().watchdog().unregister(this);
        return lock.client().scripts().release(keys, token, lock.client().instanceId()).handle((reply, error) -> {
            state.set(RELEASED);
            if (error != null) {
                LOG.warn("could not release abandoned lease of lock '{}'; it expires after {} ms: {}",
                        lock.name(), leaseMillis, Errors.unwrap(error).toString());
            } else {
                lock.client().notifier().wakeOne(keys.channel());
            }
            return null;
        });
    }

    /** Marks the lease lost (once) and runs the callbacks. */
    void lose(String reason) {
        int current = state.get();
        while (current == HELD || current == RELEASING) {
            if (state.compareAndSet(current, LOST)) {
                LOG.warn("lease of lock '{}' (fence {}) lost: {}", lock.name(), fence, reason);
                List<Runnable> toRun;
                synchronized (this) {
                    toRun = callbacks == null ? List.of() : callbacks;
                    callbacks = null;
                }
                for (Runnable callback : toRun) {
                    lock.client().runCallback(callback);
                }
                lock.client().notifier().wakeOne(keys.channel());
                return;
            }
            current = state.get();
        }
    }

    boolean active() {
        return state.get() == HELD;
    }

    long deadline() {
        return deadline;
    }

    /** How long before its due time a lease may join the batch of a lease due earlier. */
    long window() {
        return leaseNanos / 12;
    }

    long retryDelay() {
        return Math.max(MIN_RETRY_NANOS, leaseNanos / 12);
    }

    /** The next time the watchdog must look at this lease. Call with the watchdog's lock held (or unshared). */
    long nextEvent() {
        if (!renewing || renewalInFlight) {
            return deadline;
        }
        // Ticks fire when the earliest lease is due and take along every lease due within the window after it.
        return nextRenewAt - deadline < 0 ? nextRenewAt : deadline;
    }

    /** A renewal sent at {@code sentAt} succeeded. Call with the watchdog's lock held. */
    void renewed(long sentAt) {
        long next = sentAt + leaseNanos - driftNanos;
        if (next - deadline > 0) {
            deadline = next;
        }
        nextRenewAt = sentAt + leaseNanos / 3;
    }
}
