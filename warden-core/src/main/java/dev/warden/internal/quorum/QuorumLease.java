package dev.warden.internal.quorum;

import dev.warden.LockConnectionException;
import dev.warden.internal.base.Errors;
import dev.warden.internal.lease.LeaseBase;
import dev.warden.internal.lease.Watchdog;
import dev.warden.internal.script.LockKeys;
import dev.warden.internal.wire.InFlight;
import dev.warden.internal.wire.Replicas;
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
    private final QuorumContext context;
    private final String token;
    private final long fence;
    private final int granted;

    /**
     * @param lock    the lock it holds: its name and keys
     * @param context what it uses of its client: the quorum's servers, in-flight requests, watchdog, clock
     * @param granted how many servers granted it
     */
    QuorumLease(QuorumLock lock, QuorumContext context, String token, long fence, long leaseMillis, boolean renewing,
                long sentAt, int granted) {
        super(leaseMillis, renewing, sentAt, leaseMillis);
        this.lock = lock;
        this.context = context;
        this.token = token;
        this.fence = fence;
        this.granted = granted;
    }

    /** Starts watching the lease: renewals if it renews, the deadline in any case. */
    void start() {
        context.watchdog().register(this);
    }

    @Override
    public LockKeys keys() {
        return lock.keys();
    }

    @Override
    public String token() {
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
    public long knownFence() {
        return fence;
    }

    @Override
    public int acknowledgements() {
        return granted;
    }

    @Override
    public CompletableFuture<Long> fencingTokenAsync() {
        return CompletableFuture.completedFuture(fence);
    }

    @Override
    public CompletableFuture<Boolean> releaseRequest() {
        if (!beginRelease()) {
            return CompletableFuture.completedFuture(false);
        }
        stop();
        return releaseAll().handle((outcomes, error) -> {
            if (error != null) {
                released();
                throw Errors.completion(error);
            }
            int released = Fanout.count(outcomes, Boolean::booleanValue);
            int gone = Fanout.count(outcomes, held -> !held);
            if (released >= context.quorum().majority()) {
                releasedHeld();
                return true;
            }
            if (context.quorum().outOfReach(gone)) {
                lose("release found it held on only " + released + " of " + context.quorum().nodes().size()
                        + " servers");
                return false;
            }
            released();
            Throwable cause = Fanout.firstFailure(outcomes);
            throw Errors.completion(new LockConnectionException(lock.describe("release") + ": released on "
                    + released + " of " + context.quorum().nodes().size()
                    + " servers; the rest failed and expire with the "
                    + "lease: " + Errors.translate(cause, "first failure").getMessage(), cause));
        });
    }

    /** On every server; held where a majority set it, not held where so many found it gone that none can. */
    @Override
    public CompletableFuture<Boolean> expireRequest(long millis, String operation) {
        return expireAll(millis, InFlight.Kind.WORK).thenApply(outcomes -> majorityHeld(outcomes, operation));
    }

    /** Held where a majority of the servers find it so, not where so many find it gone that none can. */
    @Override
    public CompletableFuture<Boolean> heldRequest() {
        return context.inFlight().track(InFlight.Kind.WORK, () -> Fanout.until(context.quorum().nodes(),
                        server -> server.scripts().held(lock.keys(), token),
                        outcomes -> context.quorum().decided(outcomes, Boolean::booleanValue)))
                .thenApply(outcomes -> majorityHeld(outcomes, "confirm"));
    }

    @Override
    public void moveDeadline(long sentAt, long millis) {
        context.watchdog().expiresAfter(this, sentAt, millis);
    }

    @Override
    public CompletableFuture<Boolean> releaseKeepingRequest(long keepMillis) {
        if (!beginRelease()) {
            return CompletableFuture.completedFuture(false);
        }
        stop();
        return finishRelease(() -> expireAll(keepMillis, InFlight.Kind.CLEANUP)
                        .thenApply(outcomes -> majorityHeld(outcomes, "release")),
                "it was found held on fewer servers than a majority on release");
    }

    private CompletableFuture<List<Fanout.Outcome<Boolean>>> expireAll(long millis, InFlight.Kind kind) {
        return context.inFlight().track(kind, () -> Fanout.until(context.quorum().nodes(),
                server -> server.scripts().expire(lock.keys(), token, millis, Replicas.NONE),
                outcomes -> context.quorum().decided(outcomes, Boolean::booleanValue)));
    }

    /**
     * @return true if a majority held the token, false if so many did not that no majority can
     * @throws LockConnectionException if too many servers failed for either
     */
    private boolean majorityHeld(List<Fanout.Outcome<Boolean>> outcomes, String operation) {
        int held = Fanout.count(outcomes, Boolean::booleanValue);
        if (held >= context.quorum().majority()) {
            return true;
        }
        if (context.quorum().outOfReach(Fanout.count(outcomes, h -> !h))) {
            return false;
        }
        Throwable cause = Fanout.firstFailure(outcomes);
        throw new LockConnectionException(lock.describe(operation) + ": held on " + held + " of "
                + context.quorum().nodes().size() + " servers, and too many failed to tell: "
                + (cause == null ? "no answer" : Errors.translate(cause, "first failure").getMessage()), cause);
    }

    @Override
    public String toString() {
        return "Lease{lock=" + lock.name() + ", fence=" + fence + ", quorum, held=" + isHeld() + "}";
    }

    /** Releases in the background a lease nobody will use; servers that did not release it are logged. */
    @Override
    public CompletableFuture<Boolean> abandon() {
        if (!beginRelease()) {
            return CompletableFuture.completedFuture(false);
        }
        stop();
        return releaseAll().handle((outcomes, error) -> {
            released();
            int failed = error != null ? context.quorum().nodes().size() : Fanout.failures(outcomes);
            if (failed > 0) {
                LOG.warn("abandoned quorum lease of lock '{}' not released on {} servers; it expires after {} ms",
                        lock.name(), failed, leaseMillis);
            }
            return error == null && Fanout.count(outcomes, Boolean::booleanValue) >= context.quorum().majority();
        });
    }

    /** Releases on every server, counted in flight until a majority released it or cannot. */
    private CompletableFuture<List<Fanout.Outcome<Boolean>>> releaseAll() {
        return context.inFlight().track(InFlight.Kind.CLEANUP, () -> Fanout.until(context.quorum().nodes(),
                        server -> server.scripts().release(lock.keys(), token, server.instanceId()),
                        outcomes -> Fanout.count(outcomes, Boolean::booleanValue) >= context.quorum().majority()))
                .whenComplete((outcomes, error) ->
                        context.quorum().eachConnected(server -> server.notifier().wakeOne(lock.keys(), false)));
    }

    private void stop() {
        context.watchdog().unregister(this);
    }

    @Override
    public QuorumContext context() {
        return context;
    }

    @Override
    public String describe(String operation) {
        return lock.describe(operation);
    }

    @Override
    public void afterLoss() {
        stop();
        context.quorum().eachConnected(server -> server.notifier().wakeOne(lock.keys(), false));
    }
}
