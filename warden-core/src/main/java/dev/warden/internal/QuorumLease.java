package dev.warden.internal;

import dev.warden.Lease;
import dev.warden.LockConnectionException;
import dev.warden.LockException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease on a quorum lock: held while a majority of servers hold its token. A renewed lease renews on every
 * server every third of its lease; a renewal that a majority confirms extends the local deadline (from when it was
 * sent, less the drift margin). The lease is lost when a renewal finds that no majority can hold it any more, or
 * when its deadline passes first.
 */
final class QuorumLease implements Lease {
    private static final Logger LOG = LoggerFactory.getLogger(QuorumLease.class);
    private static final int HELD = 0;
    private static final int RELEASING = 1;
    private static final int RELEASED = 2;
    private static final int LOST = 3;
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final QuorumLock lock;
    private final QuorumLockClient client;
    private final String token;
    private final long fence;
    private final long leaseMillis;
    private final long leaseNanos;
    private final long driftNanos;
    private final boolean renewing;
    private final int granted;
    private final AtomicInteger state = new AtomicInteger(HELD);
    private volatile long deadline;

    // Guarded by this.
    private List<Runnable> callbacks;
    private ScheduledFuture<?> timer;
    private long nextRenewAt;

    QuorumLease(QuorumLock lock, String token, long fence, long leaseMillis, boolean renewing, long sentAt,
                int granted) {
        this.lock = lock;
        this.client = lock.client();
        this.token = token;
        this.fence = fence;
        this.leaseMillis = leaseMillis;
        this.leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        this.driftNanos = leaseNanos / 100 + TimeUnit.MILLISECONDS.toNanos(2);
        this.renewing = renewing;
        this.granted = granted;
        this.deadline = sentAt + leaseNanos - driftNanos;
        this.nextRenewAt = sentAt + leaseNanos / 3;
    }

    /** Starts watching the lease: renewals if it renews, the deadline in any case. */
    void start() {
        client.held(this);
        schedule();
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
        return granted;
    }

    @Override
    public boolean isHeld() {
        return state.get() == HELD && client.ticker().read() - deadline < 0;
    }

    @Override
    public Duration remaining() {
        long left = deadline - client.ticker().read();
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
        stop();
        List<Fanout.Outcome<List<Object>>> outcomes;
        try {
            outcomes = client.await(releaseAll(), lock.describe("release"));
        } catch (LockException e) {
            state.set(RELEASED);
            throw e;
        }
        int released = 0;
        int gone = 0;
        for (Fanout.Outcome<List<Object>> outcome : outcomes) {
            if (outcome.ok()) {
                long status = (Long) outcome.value().get(0);
                released += status == 1L ? 1 : 0;
                gone += status == 0L ? 1 : 0;
            }
        }
        if (released >= client.majority()) {
            state.set(RELEASED);
            return true;
        }
        if (gone > client.nodes().size() - client.majority()) {
            lose("release found it held on only " + released + " of " + client.nodes().size() + " servers");
            return false;
        }
        state.set(RELEASED);
        Throwable cause = Fanout.firstFailure(outcomes);
        throw new LockConnectionException(lock.describe("release") + ": released on " + released + " of "
                + client.nodes().size() + " servers; the rest failed and expire with the lease: "
                + Errors.translate(cause, "first failure").getMessage(), cause);
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "Lease{lock=" + lock.name() + ", fence=" + fence + ", quorum, held=" + isHeld() + "}";
    }

    /** Releases in the background a lease nobody will use; failures are logged. */
    CompletableFuture<Void> abandon() {
        if (!state.compareAndSet(HELD, RELEASING)) {
            return CompletableFuture.completedFuture(null);
        }
        stop();
        return releaseAll().handle((outcomes, error) -> {
            state.set(RELEASED);
            int failed = error != null ? client.nodes().size() : Fanout.failures(outcomes);
            if (failed > 0) {
                LOG.warn("abandoned quorum lease of lock '{}' not released on {} servers; it expires after {} ms",
                        lock.name(), failed, leaseMillis);
            }
            return null;
        });
    }

    private CompletableFuture<List<Fanout.Outcome<List<Object>>>> releaseAll() {
        return Fanout.until(client.nodes(),
                        node -> node.scripts().release(lock.keys(), token, node.instanceId()),
                        outcomes -> count(outcomes, 1L) >= client.majority())
                .whenComplete((outcomes, error) ->
                        client.eachConnected(node -> node.notifier().wakeOne(lock.keys().channel())));
    }

    /** @return how many servers answered with a reply whose first element is {@code status} */
    private static int count(List<Fanout.Outcome<List<Object>>> outcomes, long status) {
        int n = 0;
        for (Fanout.Outcome<List<Object>> outcome : outcomes) {
            n += outcome.ok() && Long.valueOf(status).equals(outcome.value().get(0)) ? 1 : 0;
        }
        return n;
    }

    private static int pending(List<? extends Fanout.Outcome<?>> outcomes) {
        int n = 0;
        for (Fanout.Outcome<?> outcome : outcomes) {
            n += outcome.pending() ? 1 : 0;
        }
        return n;
    }

    private void stop() {
        client.ended(this);
        synchronized (this) {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
    }

    /** Schedules the next renewal, or the deadline check when it comes first. */
    private synchronized void schedule() {
        if (state.get() != HELD) {
            return;
        }
        long at = renewing && nextRenewAt - deadline < 0 ? nextRenewAt : deadline;
        timer = client.scheduler().schedule(this::tick, Math.max(0, at - client.ticker().read()),
                TimeUnit.NANOSECONDS);
    }

    private void tick() {
        if (state.get() != HELD) {
            return;
        }
        long now = client.ticker().read();
        if (now - deadline >= 0) {
            lose(renewing ? "its lease ran out before a majority confirmed a renewal"
                    : "its fixed lease of " + leaseMillis + " ms ran out before release");
            return;
        }
        if (!renewing || nextRenewAt - now > 0) {
            schedule();
            return;
        }
        long sentAt = now;
        String[] keys = {lock.keys().lock()};
        String[] args = {token, Long.toString(leaseMillis)};
        Fanout.until(client.nodes(), node -> node.scripts().renew(keys, args),
                outcomes -> count(outcomes, 1L) >= client.majority()
                        || outcomes.size() - count(outcomes, 1L) - pending(outcomes)
                        > client.nodes().size() - client.majority()).thenAccept(outcomes -> {
            int renewed = 0;
            int gone = 0;
            for (Fanout.Outcome<List<Object>> outcome : outcomes) {
                if (outcome.ok()) {
                    boolean ok = Long.valueOf(1L).equals(outcome.value().get(0));
                    renewed += ok ? 1 : 0;
                    gone += ok ? 0 : 1;
                }
            }
            if (gone > client.nodes().size() - client.majority()) {
                lose("a renewal found it held on only " + renewed + " of " + client.nodes().size() + " servers");
                return;
            }
            synchronized (this) {
                if (renewed >= client.majority()) {
                    long next = sentAt + leaseNanos - driftNanos;
                    if (next - deadline > 0) {
                        deadline = next;
                    }
                    nextRenewAt = sentAt + leaseNanos / 3;
                } else {
                    // Too many servers did not answer: retry soon; the deadline decides.
                    nextRenewAt = client.ticker().read() + Math.max(MIN_RETRY_NANOS, leaseNanos / 12);
                }
            }
            schedule();
        });
    }

    private void lose(String reason) {
        int current = state.get();
        while (current == HELD || current == RELEASING) {
            if (state.compareAndSet(current, LOST)) {
                stop();
                LOG.warn("quorum lease of lock '{}' (fence {}) lost: {}", lock.name(), fence, reason);
                List<Runnable> toRun;
                synchronized (this) {
                    toRun = callbacks == null ? List.of() : callbacks;
                    callbacks = null;
                }
                for (Runnable callback : toRun) {
                    client.runCallback(callback);
                }
                client.eachConnected(node -> node.notifier().wakeOne(lock.keys().channel()));
                return;
            }
            current = state.get();
        }
    }
}
