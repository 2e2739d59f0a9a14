package dev.warden;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The lease of a multi-lock ({@link LockClient#multiLock}): one lease for all of its locks, each held by a lease of
 * its own underneath. It is held while every part is; it is lost, once, as soon as any part is lost (then
 * {@link #release()} still releases the other parts, and returns false); release, extend and close act on every
 * part. Each lock keeps its own fencing token, so {@link #fencingToken()} has no single answer and throws; ask
 * {@link #fencingToken(String)} for the token of the lock that guards a resource.
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
     * Throws: a multi-lock has one token per lock.
     *
     * @throws UnsupportedOperationException always; use {@link #fencingToken(String)}
     */
    @Override
    long fencingToken();
}
