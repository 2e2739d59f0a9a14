package dev.warden;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A candidate of an election: this process competing, with others, to lead for one name
 * ({@link LockClient#leadership}). The candidate waits in the queue of the election's lock; the release or expiry of the leader's lease elects the
 * next candidate at once, without polling. A leader leads by a renewed lease, and its term ends the moment the
 * lease is known lost (a renewal that found it gone, a renewal that failed past the lease's local deadline, a
 * forced release), when it {@link #stepDown steps down}, and when it is {@link #close closed}. After a term ends the
 * candidate joins again, behind the candidates already waiting, until it is closed.
 *
 * <p>At most one candidate believes it leads at any moment as long as clocks run at about the same rate (the
 * lease's guarantee); a leader that stalls past its lease may still act before it learns, which is what the
 * {@link Term#epoch() epoch} is for. Closing the client closes its candidates.
 */
public interface Leadership extends AutoCloseable {
    /** Why a term ended. */
    enum Revocation {
        /** The lease was lost: found gone or taken, not renewed in time, or released by force. */
        LOST,
        /** The leader stepped down on purpose ({@link #stepDown}). */
        STEPPED_DOWN,
        /** The candidate, or its client, was closed. */
        CLOSED
    }

    /** @return the name of the election */
    String name();

    /**
     * @return whether this candidate leads now: elected, and its lease not known lost; false from the moment the
     *         lease is known lost, even before {@link LeadershipListener#revoked} has run
     */
    boolean isLeader();

    /** @return the current term if this candidate leads now, else empty */
    Optional<Term> term();

    /**
     * Waits until this candidate leads, at most {@code timeout}.
     *
     * @return the term, or empty if it did not lead within {@code timeout}
     * @throws InterruptedException      if the thread is interrupted while waiting (the candidate stays in the
     *                                   election)
     * @throws IllegalLockStateException if the candidate is closed
     * @throws IllegalArgumentException  if {@code timeout} is negative
     */
    Optional<Term> awaitLeadership(Duration timeout) throws InterruptedException;

    /**
     * @return completes with the term when this candidate leads (at once if it leads now), or exceptionally with
     *         {@link IllegalLockStateException} if it is closed first; cancelling it leaves the candidate in the
     *         election
     */
    CompletableFuture<Term> leadershipAsync();

    /**
     * Ends this candidate's term on purpose, releasing its lease so that the next candidate is elected at once, and
     * joins again behind the candidates waiting.
     *
     * @return whether it led (and stepped down); false if it did not lead
     */
    boolean stepDown();

    /**
     * Leaves the election: stops waiting, and if it leads, releases its lease (its term ends with
     * {@link Revocation#CLOSED}). Idempotent.
     */
    @Override
    void close();
}
