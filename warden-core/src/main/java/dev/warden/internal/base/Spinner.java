package dev.warden.internal.base;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * Decides whether a thread blocked on a reply spins for it before parking, and runs the spin. Waking a parked
 * thread takes tens of microseconds when its core sat idle (a virtual machine's idle core most of all), as long as a
 * round trip to a Redis nearby; a thread that spins is running when the reply comes.
 *
 * <p>A spin takes a core, so a thread spins only while it is the only thread of its client inside a blocking call
 * (threads that wait for a held lock count too): the threads of a busy client never spin, since they would take the
 * CPU that Redis and the I/O threads need, and neither do those of a contended lock. A spin lasts at most the budget.
 * Spins that run out (a Redis far away, a loaded machine) cost credit and hits earn it back, as the JVM's adaptive
 * spinning does: without credit a thread parks at once, except every {@value #PROBE}th time, which spins to see
 * whether spinning pays again.
 *
 * <p>The spin yields rather than pausing ({@link Thread#onSpinWait()}): the I/O thread that will read the reply may
 * be runnable on the spinner's core, and a pausing spinner made it wait for the scheduler's next tick, past the
 * budget for most spins.
 *
 * <p>Spins are timed with {@link System#nanoTime()}, not the client's ticker: they are about this machine, and a
 * test's frozen ticker must not make one endless.
 */
public final class Spinner {
    private static final int PROBE = 16;
    private static final int MAX_CREDIT = 16;
    private static final int MIN_CREDIT = -8;
    private static final int MISS_COST = 1;

    private final long budgetNanos;
    private final AtomicInteger callers = new AtomicInteger();
    // Updated without a lock: a lost update only shifts the heuristic a little.
    private volatile int credit;
    private volatile int skipped;

    /** @param budgetNanos the longest spin; 0 never spins */
    Spinner(long budgetNanos) {
        this.budgetNanos = budgetNanos;
    }

    /** A thread enters a blocking call of this client; it must {@link #exit()} when the call returns. */
    public void enter() {
        callers.incrementAndGet();
    }

    /** The thread leaves the blocking call it {@link #enter() entered}. */
    public void exit() {
        callers.decrementAndGet();
    }

    /** @return how many threads are inside blocking calls of this client */
    public int callers() {
        return callers.get();
    }

    /** @return the credit of this spinner: below zero, threads park at once but for probes */
    int credit() {
        return credit;
    }

    /**
     * Spins, in a thread that {@link #enter() entered} a call, until the future is done, the budget counted from
     * {@code since} is spent, another thread enters a call, the thread is interrupted, or {@code due} turns false
     * (the reply came and did not settle the future).
     *
     * @param since when the reply became due, on {@link System#nanoTime()}
     * @return whether the future is done
     */
    public boolean spin(CompletableFuture<?> future, long since, BooleanSupplier due) {
        if (budgetNanos == 0 || (credit < 0 && ++skipped % PROBE != 0)) {
            return future.isDone();
        }
        Thread thread = Thread.currentThread();
        while (!future.isDone()) {
            if (System.nanoTime() - since >= budgetNanos) {
                credit = Math.max(MIN_CREDIT, credit - MISS_COST);
                return false;
            }
            if (callers.get() > 1 || thread.isInterrupted() || !due.getAsBoolean()) {
                return future.isDone();
            }
            Thread.yield();
        }
        credit = Math.min(MAX_CREDIT, credit + 1);
        return true;
    }
}
