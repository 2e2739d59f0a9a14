package dev.warden.internal.lead;

import dev.warden.IllegalLockStateException;
import dev.warden.Lease;
import dev.warden.Leadership;
import dev.warden.LeadershipListener;
import dev.warden.Term;
import dev.warden.internal.base.Errors;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Require;
import dev.warden.internal.base.Serial;
import dev.warden.internal.lease.LockBase;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A candidate of an election, on the election's lock: it waits in the lock's queue ({@code acquireAsync}, woken by
 * the release or expiry of the leader's lease, never polling), asks the lease's fencing token for its term's epoch,
 * and leads until the lease is lost, it steps down, or it is closed; then joins again unless closed. The listener
 * hears each term in order on a {@link Serial} over the client's callback threads, and the client's
 * {@link dev.warden.LockListener} on its events thread ({@link Events}), off the lock's path.
 *
 * <p>One state, {@link State}, guarded by this candidate's monitor and changed only by {@link #move}: WAITING (an
 * acquire in flight, or a retry scheduled after a failure), LEADING (a term and its lease), CLOSED.
 */
public final class Candidate implements Leadership {
    private static final Logger LOG = LoggerFactory.getLogger(Candidate.class);
    /** How long a candidate waits before joining again after joining failed. */
    static final Duration RETRY = Duration.ofSeconds(1);

    /** Where a candidate stands. */
    private sealed interface State permits Waiting, Leading, Closed {
    }

    /**
     * In the queue, or about to join it.
     *
     * @param acquiring the acquire in flight, or null while joining is to come ({@code retry}, or a step-down's
     *                  release first)
     * @param retry     the scheduled retry after a failure, or null
     */
    private record Waiting(CompletableFuture<Lease> acquiring, ScheduledFuture<?> retry) implements State {
    }

    /** Elected: leads for {@code term} by {@code lease}. */
    private record Leading(Term term, Lease lease) implements State {
    }

    /** Left the election. */
    private record Closed() implements State {
    }

    private final LockBase lock;
    private final LeadershipListener listener;
    private final Serial calls;
    /** The client's events, for its {@link dev.warden.LockListener}. */
    private final Events events;
    private final ScheduledExecutorService scheduler;
    private final Consumer<Candidate> onClose;
    /** Changed only by {@link #move}. Guarded by this. */
    private State state = new Waiting(null, null);
    /** Completes at this candidate's next election; replaced once completed. Guarded by this. */
    private CompletableFuture<Term> nextTerm = new CompletableFuture<>();

    /**
     * @param lock     the election's lock
     * @param listener told of each term, or null
     * @param onClose  told once when the candidate closes (its client stops tracking it)
     */
    public Candidate(LockBase lock, LeadershipListener listener, Consumer<Candidate> onClose) {
        this.lock = lock;
        this.listener = listener;
        this.calls = new Serial(lock.callbackExecutor());
        this.events = lock.events();
        this.scheduler = lock.context().scheduler();
        this.onClose = onClose;
    }

    /** Joins the election: waits in the lock's queue. Does nothing once closed. */
    public void join() {
        CompletableFuture<Lease> acquiring;
        synchronized (this) {
            if (!(state instanceof Waiting waiting) || waiting.acquiring() != null) {
                return;
            }
            acquiring = lock.acquireAsync();
            move(new Waiting(acquiring, null));
        }
        acquiring.whenComplete((lease, error) -> guarded(() -> acquired(acquiring, lease, error), "the election"));
    }

    @Override
    public String name() {
        return lock.name();
    }

    @Override
    public boolean isLeader() {
        return leading() != null;
    }

    @Override
    public Optional<Term> term() {
        Leading leading = leading();
        return leading == null ? Optional.empty() : Optional.of(leading.term());
    }

    @Override
    public Optional<Term> awaitLeadership(Duration timeout) throws InterruptedException {
        Require.argument(timeout != null && !timeout.isNegative(), "timeout must not be negative: %s", timeout);
        try {
            return Optional.of(leadershipAsync().get(timeout.toNanos(), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (ExecutionException e) {
            throw Errors.forCaller(e.getCause(), "await leadership of '" + name() + "'");
        }
    }

    @Override
    public CompletableFuture<Term> leadershipAsync() {
        synchronized (this) {
            if (state instanceof Leading leading && leading.lease().isHeld()) {
                return CompletableFuture.completedFuture(leading.term());
            }
            // A copy: a caller that cancels its future leaves the others', and the candidate, as they are.
            return nextTerm.copy();
        }
    }

    @Override
    public boolean stepDown() {
        Leading leading;
        synchronized (this) {
            if (!(state instanceof Leading current)) {
                return false;
            }
            leading = current;
            move(new Waiting(null, null));
        }
        revoked(leading.term(), Revocation.STEPPED_DOWN);
        // The next candidate is elected by this release; this one queues again behind those waiting.
        leading.lease().releaseAsync().whenComplete((released, error) -> guarded(this::join, "rejoining"));
        return true;
    }

    @Override
    public void close() {
        State before;
        CompletableFuture<Term> waiting;
        synchronized (this) {
            if (state instanceof Closed) {
                return;
            }
            before = state;
            move(new Closed());
            waiting = nextTerm;
        }
        try {
            if (before instanceof Waiting w) {
                if (w.acquiring() != null) {
                    // Stops waiting; a grant that comes anyway is given back by the acquire.
                    w.acquiring().cancel(false);
                }
                if (w.retry() != null) {
                    w.retry().cancel(false);
                }
            } else if (before instanceof Leading leading) {
                try {
                    leading.lease().release();
                } finally {
                    revoked(leading.term(), Revocation.CLOSED);
                }
            }
        } finally {
            waiting.completeExceptionally(new IllegalLockStateException("candidate of '" + name() + "' closed"));
            onClose.accept(this);
        }
    }

    @Override
    public String toString() {
        State now;
        synchronized (this) {
            now = state;
        }
        return "Leadership{" + name() + ", " + now.getClass().getSimpleName().toLowerCase() + "}";
    }

    /** The one place where the state changes. Guarded by this. */
    private void move(State next) {
        state = next;
    }

    /** @return the current term if it leads and its lease is not known lost, else null */
    private synchronized Leading leading() {
        return state instanceof Leading leading && leading.lease().isHeld() ? leading : null;
    }

    private void acquired(CompletableFuture<Lease> acquiring, Lease lease, Throwable error) {
        if (error != null) {
            Throwable cause = error instanceof CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            if (cause instanceof CancellationException) {
                return;
            }
            if (cause instanceof IllegalLockStateException) {
                // The client is closed: the candidate goes with it.
                close();
                return;
            }
            failed(acquiring, cause);
            return;
        }
        lease.fencingTokenAsync().whenComplete((epoch, fenceError) -> guarded(() -> {
            if (fenceError != null) {
                lease.releaseAsync();
                failed(acquiring, fenceError);
            } else {
                elected(acquiring, lease, epoch);
            }
        }, "the election"));
    }

    private void elected(CompletableFuture<Lease> acquiring, Lease lease, long epoch) {
        Term term = new Term(name(), epoch);
        CompletableFuture<Term> elected;
        synchronized (this) {
            if (!(state instanceof Waiting waiting) || waiting.acquiring() != acquiring) {
                elected = null;
            } else {
                move(new Leading(term, lease));
                elected = nextTerm;
                nextTerm = new CompletableFuture<>();
                // Queued under the monitor: a step-down or close that follows the move at once (it sees isLeader())
                // queues its revoked after this, never before.
                calls.execute(() -> tell(l -> l.elected(term), "elected"));
                events.elected(term);
            }
        }
        if (elected == null) {
            // Closed meanwhile: nobody leads by this lease.
            lease.releaseAsync();
            return;
        }
        elected.complete(term);
        // After the elected call is queued, so that a lease already lost is revoked after it, never before.
        lease.onLost(() -> lost(term));
    }

    private void lost(Term term) {
        synchronized (this) {
            if (!(state instanceof Leading leading) || leading.term() != term) {
                return;
            }
            move(new Waiting(null, null));
        }
        revoked(term, Revocation.LOST);
        join();
    }

    /**
     * Tells the end of {@code term} to the listener and to the client's events. Called once per term, after the move
     * out of its Leading state, which comes after the term's elected was queued (under the monitor).
     */
    private void revoked(Term term, Revocation why) {
        calls.execute(() -> tell(l -> l.revoked(term, why), "revoked"));
        events.revoked(term, why);
    }

    /** Joining failed: told to the listener and logged; joins again after {@link #RETRY}. */
    private void failed(CompletableFuture<Lease> acquiring, Throwable error) {
        synchronized (this) {
            if (!(state instanceof Waiting waiting) || waiting.acquiring() != acquiring) {
                return;
            }
            rejoinLater();
        }
        LOG.warn("candidate of '{}' could not join the election; joining again in {}: {}", name(), RETRY,
                error.toString());
        calls.execute(() -> tell(l -> l.failed(error, RETRY), "failed"));
    }

    /** Waits {@link #RETRY}, then joins again. Guarded by this. */
    private void rejoinLater() {
        ScheduledFuture<?> retry = scheduler.schedule(() -> guarded(this::retry, "rejoining"), RETRY.toNanos(),
                TimeUnit.NANOSECONDS);
        move(new Waiting(null, retry));
    }

    private void retry() {
        synchronized (this) {
            if (!(state instanceof Waiting waiting) || waiting.retry() == null) {
                return;
            }
            move(new Waiting(null, null));
        }
        join();
    }

    /** Calls the listener, if any; what it throws is logged, never lost. */
    private void tell(Consumer<LeadershipListener> call, String what) {
        if (listener == null) {
            return;
        }
        try {
            call.accept(listener);
        } catch (RuntimeException | Error e) {
            LOG.warn("leadership listener of '{}' failed in {}", name(), what, e);
        }
    }

    /**
     * Runs a step of the candidate from a future's callback: what it throws would be lost there, so it is logged
     * and the candidate joins again after {@link #RETRY}.
     */
    private void guarded(Runnable step, String what) {
        try {
            step.run();
        } catch (RuntimeException | Error e) {
            LOG.warn("candidate of '{}' failed in {}; joining again in {}", name(), what, RETRY, e);
            synchronized (this) {
                if (state instanceof Closed || state instanceof Leading) {
                    return;
                }
                rejoinLater();
            }
        }
    }
}
