package dev.warden;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The lease of a multi-lock ({@link LockClient#multiLock}): one lease for all of its locks, each held by a lease of
 * its own underneath. It is held while every part is; it is lost, once, as soon as any part is lost (then
 * {@link #release()} still releases the other parts, and returns false); release, extend and close act on every
 * part. Each lock keeps its own fencing token, {@link #fencingToken(String)}: hand a resource guarded by one of
 * the locks that lock's token. {@link #fencingToken()} is the highest of them, which rises with every holder of
 * the multi-lock's own name (its names joined): for a resource guarded by the whole set, as a transfer between two
 * accounts written as one unit.
 */
public interface MultiLease extends Lease {
    /** @return the names of the locks held, in the order they were acquired (sorted) */
    List<String> names();

    /**
     * The fencing token of one of the locks, as {@link Lease#fencingToken()} gives it for that lock alone.
     *
     * @param name the lock's name, one of {@link #names()}
     * @return its token
     * @throws IllegalArgumentException if {@code name} is not one of the locks
     * @throws LeaseLostException       if the token had to be issued and that part is no longer held
     * @throws LockException            if the token had to be issued and Redis failed to answer
     */
    long fencingToken(String name);

    /**
     * {@link #fencingToken(String)} without blocking the calling thread.
     *
     * @param name the lock's name, one of {@link #names()}
     * @return completes with the token, or exceptionally as {@link #fencingToken(String)} throws
     * @throws IllegalArgumentException if {@code name} is not one of the locks
     */
    CompletableFuture<Long> fencingTokenAsync(String name);

    /**
     * The highest of the parts' fencing tokens. Every part's token exceeds every token issued before for that part,
     * so this one exceeds the token of every earlier lease of the same multi-lock (the same names), across expiries
     * and data loss, which is what {@link Lease#fencingToken()} promises for its {@link #lockName()}. It is not a
     * token of any one part: for a resource guarded by one lock, use {@link #fencingToken(String)}.
     *
     * @return the highest of the parts' tokens
     * @throws LeaseLostException if a token had to be issued and that part is no longer held
     * @throws LockException      if a token had to be issued and Redis failed to answer
     */
    @Override
    long fencingToken();
}
