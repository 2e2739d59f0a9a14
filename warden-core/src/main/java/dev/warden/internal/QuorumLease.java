package dev.warden.internal;

import dev.warden.Ticker;
import dev.warden.LockConnectionException;
import dev.warden.LockException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease on a quorum lock: held while a majority of servers hold its token. The quorum client's {@link Watchdog}
 * renews it on every server a third of its lease after the last renewal; a renewal that a majority confirms extends
 * the local deadline (from when it was sent, less the drift margin). The lease is lost when a renewal finds that no
 * majority can hold it any more, or when its deadline passes first.
 */
final class QuorumLease extends LeaseBase {
    private static final Logger LOG = LoggerFactory.getLogger(QuorumLease.class);

    private final QuorumLock lock;
    private final QuorumLockClient client;
    private final String token;
    private final long fence;
    private final int granted;

    QuorumLease(QuorumLock lock, String token, long fence, long leaseMillis, boolean renewing, long sentAt,
                int granted) {
        super(leaseMillis, renewing, sentAt, leaseMillis);
        this.lock = lock;
        this.client = lock.client();
        this.token = token;
        this.fence = fence;
        this.granted = granted;
    }

    /** Starts watching the lease: renewals if it renews, the deadline in any case. */
    void start() {
        client.watchdog().register(this);
    }

    @Override
    LockKeys keys() {
        return lock.keys();
    }

    @Override
    String token() {
        return token;
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

    /** Releases in the background a lease nobody will use; servers that did not release it are logged. */
    @Override
    CompletableFuture<Boolean> abandon() {
        if (!beginRelease()) {
            return CompletableFuture.completedFuture(false);
        }
        stop();
        return releaseAll().handle((outcomes, error) -> {
            released();
            int failed = error != null ? client.nodes().size() : Fanout.failures(outcomes);
            if (failed > 0) {
                LOG.warn("abandoned quorum lease of lock '{}' not released on {} servers; it expires after {} ms",
                        lock.name(), failed, leaseMillis);
            }
            return error == null && Fanout.count(outcomes, Boolean::booleanValue) >= client.majority();
        });
    }

    /** Releases on every server, counted in flight until a majority released it or cannot. */
    private CompletableFuture<List<Fanout.Outcome<Boolean>>> releaseAll() {
        return client.send(InFlight.Kind.CLEANUP, () -> Fanout.until(client.nodes(),
                        server -> server.scripts().release(lock.keys(), token, server.instanceId()),
                        outcomes -> Fanout.count(outcomes, Boolean::booleanValue) >= client.majority()))
                .whenComplete((outcomes, error) ->
                        client.eachConnected(server -> server.notifier().wakeOne(lock.keys(), false)));
    }

    private void stop() {
        client.watchdog().unregister(this);
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
        client.eachConnected(server -> server.notifier().wakeOne(lock.keys(), false));
    }
}
