package dev.warden.internal;

import dev.warden.Ticker;
import dev.warden.LockConnectionException;
import dev.warden.LockException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease on a quorum lock: held while a majority of servers hold its token. A renewed lease renews on every
 * server every third of its lease; a renewal that a majority confirms extends the local deadline (from when it was
 * sent, less the drift margin). The lease is lost when a renewal finds that no majority can hold it any more, or
 * when its deadline passes first.
 */
final class QuorumLease extends LeaseBase {
    private static final Logger LOG = LoggerFactory.getLogger(QuorumLease.class);
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

    // Guarded by this.
    private ScheduledFuture<?> timer;
    private long nextRenewAt;

    QuorumLease(QuorumLock lock, String token, long fence, long leaseMillis, boolean renewing, long sentAt,
                int granted) {
        super(sentAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis) - RedisLease.drift(leaseMillis));
        this.lock = lock;
        this.client = lock.client();
        this.token = token;
        this.fence = fence;
        this.leaseMillis = leaseMillis;
        this.leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        this.driftNanos = RedisLease.drift(leaseMillis);
        this.renewing = renewing;
        this.granted = granted;
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
    long knownFence() {
        return fence;
    }

    @Override
    public int acknowledgements() {
        return granted;
    }

    @Override
    public boolean release() {
        if (!beginRelease()) {
            return false;
        }
        stop();
        List<Fanout.Outcome<Boolean>> outcomes;
        try {
            outcomes = client.await(releaseAll(), lock.describe("release"));
        } catch (LockException e) {
            released();
            throw e;
        }
        int released = Fanout.count(outcomes, Boolean::booleanValue);
        int gone = Fanout.count(outcomes, held -> !held);
        if (released >= client.majority()) {
            released();
            return true;
        }
        if (client.outOfReach(gone)) {
            lose("release found it held on only " + released + " of " + client.nodes().size() + " servers");
            return false;
        }
        released();
        Throwable cause = Fanout.firstFailure(outcomes);
        throw new LockConnectionException(lock.describe("release") + ": released on " + released + " of "
                + client.nodes().size() + " servers; the rest failed and expire with the lease: "
                + Errors.translate(cause, "first failure").getMessage(), cause);
    }

    @Override
    public String toString() {
        return "Lease{lock=" + lock.name() + ", fence=" + fence + ", quorum, held=" + isHeld() + "}";
    }

    /** Releases in the background a lease nobody will use; failures are logged. */
    CompletableFuture<Void> abandon() {
        if (!beginRelease()) {
            return CompletableFuture.completedFuture(null);
        }
        stop();
        return releaseAll().handle((outcomes, error) -> {
            released();
            int failed = error != null ? client.nodes().size() : Fanout.failures(outcomes);
            if (failed > 0) {
                LOG.warn("abandoned quorum lease of lock '{}' not released on {} servers; it expires after {} ms",
                        lock.name(), failed, leaseMillis);
            }
            return null;
        });
    }

    private CompletableFuture<List<Fanout.Outcome<Boolean>>> releaseAll() {
        return Fanout.until(client.nodes(),
                        node -> node.scripts().release(lock.keys(), token, node.instanceId()),
                        outcomes -> Fanout.count(outcomes, Boolean::booleanValue) >= client.majority())
                .whenComplete((outcomes, error) ->
                        client.eachConnected(node -> node.notifier().wakeOne(lock.keys(), false)));
    }

    /** Whether a renewal of this lease's one key worked. */
    private static boolean done(boolean[] reply) {
        return reply[0];
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
        if (!active()) {
            return;
        }
        long at = renewing && nextRenewAt - deadline < 0 ? nextRenewAt : deadline;
        timer = client.scheduler().schedule(this::tick, Math.max(0, at - client.ticker().read()),
                TimeUnit.NANOSECONDS);
    }

    private void tick() {
        if (!active()) {
            return;
        }
        long now = client.ticker().read();
        if (now - deadline >= 0) {
            loseUnlessReleasing(renewing ? "its lease ran out before a majority confirmed a renewal"
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
        InFlight.then(Fanout.until(client.nodes(), node -> node.scripts().renew(keys, args),
                outcomes -> client.decided(outcomes, QuorumLease::done)), (outcomes, error) -> {
            if (error != null) {
                throw new IllegalStateException("a fan-out never fails", error);
            }
            int renewed = Fanout.count(outcomes, QuorumLease::done);
            int gone = Fanout.count(outcomes, reply -> !done(reply));
            if (client.outOfReach(gone)) {
                loseUnlessReleasing("a renewal found it held on only " + renewed + " of " + client.nodes().size()
                        + " servers");
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
        }, this::renewalFailed);
    }

    /** A renewal whose callback threw: logged, and the next tick tries again; the deadline decides. */
    private void renewalFailed(Throwable error) {
        LOG.warn("renewal of quorum lease of lock '{}' failed", lock.name(), error);
        synchronized (this) {
            nextRenewAt = client.ticker().read() + Math.max(MIN_RETRY_NANOS, leaseNanos / 12);
        }
        schedule();
    }

    @Override
    Ticker ticker() {
        return client.ticker();
    }

    @Override
    void runCallback(Runnable callback) {
        client.runCallback(callback);
    }

    @Override
    void afterLoss() {
        stop();
        client.eachConnected(node -> node.notifier().wakeOne(lock.keys(), false));
    }
}
