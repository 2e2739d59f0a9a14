package dev.warden.internal;

import dev.warden.Lease;
import dev.warden.LockConnectionException;
import dev.warden.LockException;
import dev.warden.LockReplicationException;
import dev.warden.LockTimeoutException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquire, driven by events and never by a blocked thread: try; when held, subscribe to the lock's channel
 * (then try again, since a release published before the subscription was missed); then wait for a wake-up or for
 * the holder's TTL to run out, whichever comes first, and try again until the deadline.
 *
 * <p>{@link #result} completes with the lease, with empty when the wait ran out, or exceptionally when Redis
 * failed. Cancelling it stops waiting; a lease granted at that moment is released.
 */
final class Acquisition implements Notifier.Waiter {
    private static final Logger LOG = LoggerFactory.getLogger(Acquisition.class);
    private static final long ONE_MS = TimeUnit.MILLISECONDS.toNanos(1);

    final CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
    private final RedisLock lock;
    private final RedisLockClient client;
    private final long leaseMillis;
    private final boolean renewing;
    private final boolean waits;
    private final boolean forever;
    private final long deadline;
    private final String token;

    // Guarded by this.
    private boolean inFlight;
    private boolean woken;
    private boolean joined;
    private ScheduledFuture<?> timer;
    private CompletableFuture<Void> subscribedAtSend;
    private boolean reserved;

    /**
     * @param waitNanos how long to wait: 0 for one try, negative for no limit
     */
    Acquisition(RedisLock lock, long waitNanos, long leaseMillis, boolean renewing) {
        this.lock = lock;
        this.client = lock.client();
        this.leaseMillis = leaseMillis;
        this.renewing = renewing;
        this.waits = waitNanos != 0;
        this.forever = waitNanos < 0;
        this.deadline = client.ticker().read() + Math.max(waitNanos, 0);
        this.token = client.tokens().next();
    }

    Acquisition start() {
        client.track(this);
        result.whenComplete((value, error) -> {
            client.untrack(this);
            if (error != null) {
                leaveQueue(true);
            }
        });
        wake();
        return this;
    }

    /** Tries now, or as soon as the attempt in flight has answered. */
    @Override
    public void wake() {
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            if (inFlight || reserved) {
                woken = true;
                return;
            }
            inFlight = true;
            woken = false;
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
        long sentAt = client.ticker().read();
        if (!joined) {
            subscribedAtSend = waits ? client.notifier().subscribed(lock.keys().channel()) : null;
        }
        Replicas replicas = lock.replicas();
        try {
            if (replicas.required()) {
                client.scripts().acquire(lock.keys(), token, leaseMillis, waits, replicas).whenComplete(
                        (acked, error) -> onReply(acked == null ? null : acked.reply(),
                                acked == null ? 0 : acked.acks(), error, sentAt));
            } else {
                client.scripts().acquire(lock.keys(), token, leaseMillis, waits).whenComplete(
                        (reply, error) -> onReply(reply, 0, error, sentAt));
            }
        } catch (RuntimeException e) {
            fail(e, false);
        }
    }

    private void onReply(List<Object> reply, long acks, Throwable error, long sentAt) {
        if (error != null) {
            fail(error, true);
            return;
        }
        if ((Long) reply.get(0) == 1L && acks < lock.replicas().count()) {
            undo(acks);
            return;
        }
        if ((Long) reply.get(0) == 1L) {
            RedisLease lease = new RedisLease(lock, token, (Long) reply.get(1), leaseMillis, renewing, sentAt,
                    (int) acks);
            client.watchdog().register(lease);
            leaveQueue(false);
            if (!result.complete(Optional.of(lease))) {
                lease.abandon();
            }
            return;
        }
        long holderTtlMillis = (Long) reply.get(1);
        long now = client.ticker().read();
        if (!waits || (!forever && now - deadline >= 0)) {
            leaveQueue(true);
            result.complete(Optional.empty());
            return;
        }
        boolean join = false;
        boolean retry = false;
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            inFlight = false;
            if (!joined) {
                joined = true;
                join = true;
            } else if (woken) {
                retry = true;
            } else {
                timer = client.scheduler().schedule(this::wake, delay(holderTtlMillis), TimeUnit.NANOSECONDS);
            }
        }
        if (join) {
            CompletableFuture<Void> subscription = client.notifier().join(lock.keys().channel(), this);
            if (subscription == subscribedAtSend) {
                // Subscribed without a break since before the try was sent: the channel's queue was never empty
                // meanwhile, so a release in between woke its head waiter. Wait, as a retry would only fail.
                waitForWake(holderTtlMillis);
                return;
            }
            subscription.whenComplete((ignored, e) -> {
                if (e != null) {
                    fail(e, false);
                } else {
                    wake();
                }
            });
        } else if (retry) {
            wake();
        }
    }

    /**
     * Too few replicas acknowledged the grant: a failover could grant the lock again, so give it back and fail.
     */
    private void undo(long acks) {
        int required = lock.replicas().count();
        LockReplicationException failure = new LockReplicationException(lock.describe("acquire") + ": granted but "
                + "acknowledged by " + acks + " of " + required + " replicas within "
                + lock.replicas().timeoutMillis() + " ms; released again", (int) acks, required);
        CompletableFuture<List<Object>> release;
        try {
            release = client.scripts().release(lock.keys(), token, client.instanceId());
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
            result.completeExceptionally(failure);
            return;
        }
        release.whenComplete((reply, e) -> {
            if (e != null) {
                failure.addSuppressed(Errors.translate(e, lock.describe("release after too few acknowledgements")));
            }
            client.notifier().wakeOne(lock.keys().channel());
            result.completeExceptionally(failure);
        });
    }

    @Override
    public boolean reserve() {
        synchronized (this) {
            // A grant by handover carries no acknowledgement count, so locks that need one take the usual path.
            if (result.isDone() || inFlight || reserved || !joined || lock.replicas().required()) {
                return false;
            }
            reserved = true;
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
            return true;
        }
    }

    @Override
    public void granted(long fence, long sentAt) {
        RedisLease lease = new RedisLease(lock, token, fence, leaseMillis, renewing, sentAt, 0);
        client.watchdog().register(lease);
        synchronized (this) {
            reserved = false;
        }
        leaveQueue(false);
        if (!result.complete(Optional.of(lease))) {
            lease.abandon();
        }
    }

    @Override
    public void unreserve() {
        synchronized (this) {
            reserved = false;
        }
        wake();
    }

    @Override
    public String token() {
        return token;
    }

    @Override
    public long leaseMillis() {
        return leaseMillis;
    }

    /** After joining an already-subscribed channel: wait like any waiter, unless a wake came meanwhile. */
    private void waitForWake(long holderTtlMillis) {
        boolean retry;
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            retry = woken;
            if (!retry) {
                timer = client.scheduler().schedule(this::wake, delay(holderTtlMillis), TimeUnit.NANOSECONDS);
            }
        }
        if (retry) {
            wake();
        }
    }

    private long delay(long holderTtlMillis) {
        long delay = holderTtlMillis > 0
                ? TimeUnit.MILLISECONDS.toNanos(holderTtlMillis) + ONE_MS
                : TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        if (!forever) {
            delay = Math.min(delay, deadline - client.ticker().read());
        }
        return Math.max(delay, 0);
    }

    private void fail(Throwable error, boolean mayHaveAcquired) {
        LockException failure = Errors.translate(error, lock.describe("acquire"));
        if (mayHaveAcquired && (failure instanceof LockTimeoutException || failure instanceof LockConnectionException)) {
            // The script may have run although no answer came back: release by token so the lock is not held
            // until its lease ends by nobody.
            try {
                client.scripts().release(lock.keys(), token, client.instanceId()).whenComplete((reply, e) -> {
                    if (e != null) {
                        LOG.debug("clean-up of failed acquire of '{}' failed: {}", lock.name(), e.toString());
                    }
                });
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
        result.completeExceptionally(failure);
    }

    private void leaveQueue(boolean passWake) {
        boolean wasJoined;
        synchronized (this) {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
            wasJoined = joined;
            joined = false;
        }
        if (wasJoined) {
            client.notifier().leave(lock.keys().channel(), this, passWake);
        }
    }
}
