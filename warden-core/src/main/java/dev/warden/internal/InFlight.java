package dev.warden.internal;

import dev.warden.LockException;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The requests of one client that were sent and whose replies have not been handled yet, and the one place where
 * the engine attaches a callback to a reply.
 *
 * <p>A client's close ({@link Closing}) waits until none is left before it releases the remaining leases and closes
 * the connection: a reply that grants a lock after the close began is then released on a connection that is
 * still open, instead of leaving the lock held until its lease ends. New work ({@link Kind#WORK}: tries, renewals,
 * fences, inspections) is refused once the client is closing; releases and clean-ups ({@link Kind#CLEANUP}) are
 * always let through. A request counts from before it is sent until its callback has returned, so a clean-up sent
 * from a callback is counted before its parent stops counting, and the count reaches zero only when nothing is on
 * its way.
 *
 * <p>A callback that throws completes the caller's future exceptionally ({@code failed}) instead of leaving it
 * incomplete, so that a programming error shows as a {@link LockException}, never as a caller blocked for ever.
 */
final class InFlight {
    /** What a request is to a closing client. */
    enum Kind {
        /** Refused once the client is closing. */
        WORK,
        /** A release or a clean-up: always sent, and waited for by {@link Closing}. */
        CLEANUP
    }

    private final Object lock = new Object();
    /** Requests sent whose callbacks have not returned yet. Guarded by {@link #lock}. */
    private int count;
    /** Whether {@link #close()} was called: new work is refused. Guarded by {@link #lock}. */
    private boolean closing;

    /**
     * Counts a request about to be sent.
     *
     * @return false, counting nothing, for new work once the client is closing
     */
    boolean enter(Kind kind) {
        synchronized (lock) {
            if (closing && kind == Kind.WORK) {
                return false;
            }
            count++;
            return true;
        }
    }

    /** A request counted by {@link #enter} has been handled, or could not be sent. */
    void exit() {
        synchronized (lock) {
            count--;
            if (count == 0) {
                lock.notifyAll();
            }
        }
    }

    /** Refuses new work from now on. */
    void close() {
        synchronized (lock) {
            closing = true;
        }
    }

    /**
     * Waits until no request is in flight, at most {@code nanos}.
     *
     * @return whether none is left
     * @throws InterruptedException if interrupted while waiting
     */
    boolean awaitNone(long nanos) throws InterruptedException {
        long end = System.nanoTime() + nanos;
        synchronized (lock) {
            while (count > 0) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                lock.wait(left / 1_000_000, (int) (left % 1_000_000));
            }
            return true;
        }
    }

    /**
     * Refuses new work once the client is closing, before a caller starts what will send it.
     *
     * @throws CallerStateException if the client is closing
     */
    void requireOpen() {
        synchronized (lock) {
            if (closing) {
                throw new CallerStateException("client is closed");
            }
        }
    }

    /** @return how many requests are in flight, for tests and close's report */
    int count() {
        synchronized (lock) {
            return count;
        }
    }

    /**
     * Sends a request and runs {@code then} on its reply. A request refused because the client is closing, a send
     * that throws, and a {@code then} that throws all go to {@code failed}, which completes the caller's future
     * exceptionally. The count is released after {@code then} (or {@code failed}) has returned.
     *
     * @param request sends the request; called at most once, here
     * @param then    the reply (value or failure, never both)
     * @param failed  completes the caller's future exceptionally
     */
    <T> void send(Kind kind, Supplier<CompletableFuture<T>> request, BiConsumer<T, Throwable> then,
                  Consumer<Throwable> failed) {
        if (!enter(kind)) {
            failed.accept(new CallerStateException("client is closed"));
            return;
        }
        CompletableFuture<T> reply;
        try {
            reply = request.get();
        } catch (RuntimeException | Error e) {
            exit();
            failed.accept(e);
            return;
        }
        reply.whenComplete((value, error) -> {
            try {
                handle(value, error, then, failed);
            } finally {
                exit();
            }
        });
    }

    /**
     * Sends a request as {@link #send} does and returns its reply: the request counts as in flight until the stages
     * attached to the returned future before the reply came have run. A request refused because the client is
     * closing, or whose send throws, completes the future exceptionally.
     *
     * @param request sends the request; called at most once, here
     * @return completes with the reply, or exceptionally with its failure
     */
    <T> CompletableFuture<T> track(Kind kind, Supplier<CompletableFuture<T>> request) {
        CompletableFuture<T> result = new CompletableFuture<>();
        send(kind, request, (value, error) -> {
            if (error != null) {
                result.completeExceptionally(error);
            } else {
                result.complete(value);
            }
        }, result::completeExceptionally);
        return result;
    }

    private static <T> void handle(T value, Throwable error, BiConsumer<T, Throwable> then,
                                   Consumer<Throwable> failed) {
        try {
            then.accept(value, error);
        } catch (RuntimeException | Error e) {
            failed.accept(e);
        }
    }

    /**
     * Runs {@code action} counted as one request in flight: a blocking call on a caller's thread, which sends and
     * waits for its answer.
     *
     * @throws IllegalStateException for new work once the client is closing ({@link CallerStateException})
     */
    <T> T call(Kind kind, Supplier<T> action) {
        if (!enter(kind)) {
            throw new CallerStateException("client is closed");
        }
        try {
            return action.get();
        } finally {
            exit();
        }
    }
}
