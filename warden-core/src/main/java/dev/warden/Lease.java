package dev.warden;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Proof that this process holds a lock, from a successful acquire until {@link #release()}, or until the lease is
 * lost. A lease is single-use: once released or lost it stays so.
 *
 * <p>A lease acquired without a fixed duration is kept alive by the client's watchdog. A lease is <em>lost</em> when
 * a renewal finds the lock gone or owned by another token, or when Redis cannot be reached before the lease's local
 * deadline (when the acquire request was sent + lease - a drift margin). When that happens {@link #isHeld()} turns
 * false and every {@link #onLost(Runnable)} callback runs once. Guard the protected resource with
 * {@link #fencingToken()}: a lease lock alone cannot stop a holder that paused past its lease.
 *
 * <p>Thread-safe: a lease may be released from any thread, not only the one that acquired it.
 */
public interface Lease extends AutoCloseable {
    /** @return the name of the lock this lease holds */
    String lockName();

    /**
     * The fencing token of this acquisition: strictly greater than every token issued before for the same name,
     * including across expiries and a restart of Redis that lost its data. Pass it to the protected resource and
     * have the resource reject writes that carry a lower token than it has seen.
     *
     * <p>A lock whose name has no fence kept in Redis is acquired without one, since most holders never ask; the
     * first call then issues it, in one round trip that also checks the lease still holds the lock. Once a name has
     * a fence, Redis keeps it for a day after each release, and every acquire in that time comes with its token, so
     * this call answers locally. Quorum locks and locks with replica acknowledgements always acquire with one. A
     * lease that took the lock over from another lease of its client, without a request, gets its token on the
     * first call too, above the other lease's.
     *
     * <p>The lease of a read lock ({@link DistributedReadWriteLock}) has the last writer's token instead, 0 if none
     * is known; a semaphore's permit lease has a token of its own, as a lock's holder has.
     *
     * @return a positive token (a read lease's may be 0), the same on every call
     * @throws LeaseLostException if the token had to be issued and the lease is no longer held
     * @throws IllegalStateException if the token had to be issued and the lease was released
     * @throws LockException if the token had to be issued and Redis failed to answer
     */
    long fencingToken();

    /**
     * {@link #fencingToken()} without blocking the calling thread: completes at once where the token is known, and
     * otherwise when Redis issued it.
     *
     * @return completes with the token, or exceptionally as {@link #fencingToken()} throws: with a
     *         {@link LeaseLostException}, an {@link IllegalStateException} if the lease was released, or a
     *         {@link LockException} if Redis failed to answer
     */
    CompletableFuture<Long> fencingTokenAsync();

    /**
     * How many replicas acknowledged the grant (Redis {@code WAIT}), for locks that require acknowledgements
     * ({@link DistributedLock#withReplicaAcks}); for a quorum lock, how many of its servers granted it.
     *
     * @return the acknowledgements, or 0 when none were asked for
     */
    int acknowledgements();

    /**
     * Whether this lease still holds the lock as far as this client knows: not released, not lost, and before its
     * local deadline. Answers from local state, without a round trip.
     *
     * @return {@code true} while held
     */
    boolean isHeld();

    /**
     * Asks Redis whether this lease still holds its lock, in one round trip that changes nothing (neither the
     * lock's expiry nor the local deadline). Where {@link #isHeld()} answers from what this client knows, this
     * answers from Redis, so it also finds a lease that an administrator's
     * {@link DistributedLock#forceRelease()}, or a server that lost its data, took away before the watchdog's next
     * renewal would have. A lease found gone is lost from then on, as if the watchdog had found it: its
     * {@link #onLost} callbacks run. The views ({@link DistributedLock#asLock()} and the integrations) call it on
     * every reentrant acquire. On a quorum, a majority of its servers must hold it; a multi-lease, every part.
     *
     * @return {@code true} if Redis confirms that this lease holds the lock; {@code false} if it was released, was
     *         already lost or its local deadline passed (without a round trip), or Redis found it gone
     * @throws LockException if Redis fails to answer; the lease is then left as it was
     */
    boolean confirm();

    /**
     * {@link #confirm()} without blocking the calling thread.
     *
     * @return completes with what {@link #confirm()} returns, on a thread of the client, or exceptionally with the
     *         {@link LockException} it throws
     */
    CompletableFuture<Boolean> confirmAsync();

    /**
     * How long the lease is still valid by the local deadline.
     *
     * @return the remaining validity, or {@link Duration#ZERO} if the lease is no longer held
     */
    Duration remaining();

    /**
     * Registers a callback to run once when the lease is lost; it runs on a client thread, or at once on the
     * calling thread if the lease is already lost. It does not run after a successful release.
     *
     * @param callback what to do
     * @throws NullPointerException if {@code callback} is null
     */
    void onLost(Runnable callback);

    /**
     * Sets a fixed lease (one acquired with a duration) to end {@code lease} from now, sooner or later than it would
     * have: the lock's key in Redis gets the new expiry in one atomic step that checks it still carries this
     * lease's token, and the local deadline then counts from when that request was sent, less the drift margin.
     * For a task that learns how long it needs as it goes, or that is done early but must hold the lock a while.
     *
     * @param lease how long from now the lease is to last: at least one millisecond
     * @return {@code true} if the lease still held the lock and now lasts that long; {@code false} if it was found
     *         lost (expired or taken), in which case it is lost now and its {@link #onLost} callbacks run
     * @throws NullPointerException     if {@code lease} is null
     * @throws IllegalArgumentException if {@code lease} is shorter than one millisecond
     * @throws IllegalStateException    if the watchdog renews this lease (it sets the expiry itself), or the lease
     *                                  was released
     * @throws LeaseLostException       if the lease was lost before this call
     * @throws LockException            if Redis fails to answer; the lease keeps its previous expiry
     */
    boolean extend(Duration lease);

    /**
     * {@link #extend(Duration)} without blocking the calling thread.
     *
     * @param lease how long from now the lease is to last: at least one millisecond
     * @return completes with what {@link #extend(Duration)} returns, on a thread of the client, or exceptionally
     *         with what it throws but for the argument's checks, which this method throws itself
     * @throws NullPointerException     if {@code lease} is null
     * @throws IllegalArgumentException if {@code lease} is shorter than one millisecond
     */
    CompletableFuture<Boolean> extendAsync(Duration lease);

    /**
     * Releases the lease now but leaves the lock held in Redis for {@code keep} more, after which it is free without
     * another request: nobody acquires it before then, this client's waiters included. For a task that must not
     * run again within a period even when it finishes early (ShedLock's {@code lockAtLeastFor}). The key's expiry
     * is set to {@code keep} (sooner or later than the lease would have ended) only if it still carries this
     * lease's token. A {@code keep} of zero or less is {@link #release()}.
     *
     * @param keep how long the lock stays held after this call
     * @return {@code true} if this lease still held the lock, which now ends after {@code keep}; {@code false} if it
     *         had been released before, or was lost (expired or taken)
     * @throws NullPointerException if {@code keep} is null
     * @throws LockException        if Redis fails to answer; the lease then stops being renewed and expires on the
     *                              server
     */
    boolean releaseAfter(Duration keep);

    /**
     * {@link #releaseAfter(Duration)} without blocking the calling thread.
     *
     * @param keep how long the lock stays held after this call
     * @return completes with what {@link #releaseAfter(Duration)} returns, on a thread of the client, or
     *         exceptionally with the {@link LockException} it throws
     * @throws NullPointerException if {@code keep} is null
     */
    CompletableFuture<Boolean> releaseAfterAsync(Duration keep);

    /**
     * Releases the lock with one atomic compare-and-delete: it never removes a lock that another owner holds.
     *
     * @return {@code true} if this lease still held the lock and released it; {@code false} if it had been
     *         released before, or was lost (expired or taken)
     * @throws LockException if Redis fails to answer; the lease then stops being renewed and expires on the server
     */
    boolean release();

    /**
     * {@link #release()} without blocking the calling thread: the release starts now (a local waiter that takes the
     * lock over gets it at once), and the future tells how it ended.
     *
     * @return completes with what {@link #release()} returns, on a thread of the client, or exceptionally with the
     *         {@link LockException} it throws
     */
    CompletableFuture<Boolean> releaseAsync();

    /**
     * Releases the lock like {@link #release()}, ignoring whether the lease was still held. Idempotent.
     *
     * @throws LockException if Redis fails to answer
     */
    @Override
    void close();
}
