package dev.warden.internal.wire;

import dev.warden.IllegalLockStateException;
import dev.warden.LockConnectionException;
import dev.warden.LockException;
import dev.warden.LockTimeoutException;
import dev.warden.internal.base.Errors;
import io.lettuce.core.RedisCommandInterruptedException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests of one client that were sent and whose replies have not been handled yet, and the one place where
 * the engine attaches a callback to a reply.
 *
 * <p>A client's close ({@code Closing}) waits until none is left before it releases the remaining leases and closes
 * the connection: a reply that grants a lock after the close began is then released on a connection that is
 * still open, instead of leaving the lock held until its lease ends. New work ({@link Kind#WORK}: tries, renewals,
 * fences, inspections) is refused once the client is closing; releases and clean-ups ({@link Kind#CLEANUP}) are
 * always let through. A request counts from before it is sent until its callback has returned, so a clean-up sent
 * from a callback is counted before its parent stops counting, and the count reaches zero only when nothing is on
 * its way.
 *
 * <p>A callback that throws completes the caller's future exceptionally ({@code failed}) instead of leaving it
 * incomplete, so that a programming error shows as a {@link LockException}, never as a caller blocked for ever.
 *
 * <p>A clean-up whose reply does not tell whether it ran is <em>unsettled</em>: a command that timed out (Lettuce
 * drops a command that times out before it is written, which a starved I/O thread makes common under load) or
 * whose connection was lost. Its lock or registration would stay until it expires, for the whole lease, by nobody.
 * Clean-ups sent with {@link #sendCleanup}, and those reported with {@link #unsettled}, are kept until
 * {@code Closing} sends them again (a release or a queue leave by token does nothing once done), so that a closed
 * client leaves nothing held or queued.
 */
public final class InFlight {
    private static final Logger LOG = LoggerFactory.getLogger(InFlight.class);
    /**
     * The most unsettled clean-ups kept for the close; beyond it the oldest is given up (named in a warning): its
     * lock expires with its lease. Only a client whose clean-ups time out by the thousand gets there.
     */
    static final int MAX_UNSETTLED = 4096;

    /**
     * A clean-up whose outcome is unknown, to send again.
     *
     * @param lock    the lock's name, for the warning if it cannot be settled
     * @param cleanup sends it again: a release or a queue leave by token, which does nothing once done
     */
    public record Unsettled(String lock, Supplier<? extends CompletableFuture<?>> cleanup) {
    }

    /** What a request is to a closing client. */
    public enum Kind {
        /** Refused once the client is closing. */
        WORK,
        /** A release or a clean-up: always sent, and waited for by {@code Closing}. */
        CLEANUP
    }

    private final Object lock = new Object();
    /** Requests sent whose callbacks have not returned yet. Guarded by {@link #lock}. */
    private int count;
    /** Whether {@link #close()} was called: new work is refused. Guarded by {@link #lock}. */
    private boolean closing;
    /**
     * New work between its count and the return of its send: it may not have reached the connection yet. Guarded
     * by {@link #lock}.
     */
    private int dispatching;
    /** Clean-ups whose outcome is unknown, oldest first, for the close to send again. Guarded by {@link #lock}. */
    private final Deque<Unsettled> unsettled = new ArrayDeque<>();

    /**
     * Counts a request about to be sent. New work counted here counts as being sent until {@link #send} (or
     * {@link #call}) has handed it to the connection, so it is counted here only by them; others count clean-ups.
     *
     * @return false, counting nothing, for new work once the client is closing
     */
    public boolean enter(Kind kind) {
        synchronized (lock) {
            if (closing && kind == Kind.WORK) {
                return false;
            }
            count++;
            if (kind == Kind.WORK) {
                dispatching++;
            }
            return true;
        }
    }

    /** New work counted by {@link #enter} has been handed to the connection (or failed to be). */
    private void sent(Kind kind) {
        if (kind != Kind.WORK) {
            return;
        }
        synchronized (lock) {
            dispatching--;
            if (dispatching == 0) {
                lock.notifyAll();
            }
        }
    }

    /** A request counted by {@link #enter} has been handled, or could not be sent. */
    public void exit() {
        synchronized (lock) {
            count--;
            if (count == 0) {
                lock.notifyAll();
            }
        }
    }

    /** Refuses new work from now on. */
    public void close() {
        synchronized (lock) {
            closing = true;
        }
    }

    /**
     * Waits, after {@link #close()}, until the new work counted before it has been handed to the connection, at most
     * {@code nanos}. A clean-up sent after this reaches Redis behind all of it (a connection keeps the order of its
     * commands): a try that a thread was still sending when the close began cannot run after the clean-up that
     * takes its waiter out of the queue, and lend a lock, a share or a place in the queue to nobody.
     *
     * @return whether none is left being sent
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitSent(long nanos) throws InterruptedException {
        long end = System.nanoTime() + nanos;
        synchronized (lock) {
            while (dispatching > 0) {
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
     * Waits until no request is in flight, at most {@code nanos}.
     *
     * @return whether none is left
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitNone(long nanos) throws InterruptedException {
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
     * @throws IllegalLockStateException if the client is closing
     */
    public void requireOpen() {
        synchronized (lock) {
            if (closing) {
                throw new IllegalLockStateException("client is closed");
            }
        }
    }

    /** @return how many requests are in flight, for tests and close's report */
    public int count() {
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
    public <T> void send(Kind kind, Supplier<CompletableFuture<T>> request, BiConsumer<T, Throwable> then,
                  Consumer<Throwable> failed) {
        if (!enter(kind)) {
            failed.accept(new IllegalLockStateException("client is closed"));
            return;
        }
        CompletableFuture<T> reply;
        try {
            reply = request.get();
        } catch (RuntimeException | Error e) {
            sent(kind);
            exit();
            failed.accept(e);
            return;
        }
        sent(kind);
        reply.whenComplete((value, error) -> {
            try {
                handle(value, error, then, failed);
            } finally {
                exit();
            }
        });
    }

    /**
     * Sends a clean-up that may be sent again, as {@link #send} does with {@link Kind#CLEANUP}: a release or a queue
     * leave by token, which does nothing once done. If its reply does not tell whether it ran ({@link #uncertain}),
     * it is kept as {@link #unsettled} for the close to send again, and {@code then} still hears of the failure.
     *
     * @param name the lock's name, for the close's warning if it cannot be settled
     */
    public <T> void sendCleanup(String name, Supplier<CompletableFuture<T>> request, BiConsumer<T, Throwable> then,
                         Consumer<Throwable> failed) {
        send(Kind.CLEANUP, request, (value, error) -> {
            if (error != null && uncertain(error)) {
                unsettled(name, request);
            }
            then.accept(value, error);
        }, error -> {
            if (uncertain(error)) {
                unsettled(name, request);
            }
            failed.accept(error);
        });
    }

    /**
     * Sends a clean-up as {@link #sendCleanup} does, and runs {@code after} once it has answered, whatever the answer
     * (or at once if it cannot be sent); a failure is logged only, since what it would have removed expires.
     *
     * @param purpose what the clean-up does, for the log: "leaving the queue"
     */
    public <T> void sendCleanupThen(String name, String purpose, Supplier<CompletableFuture<T>> request,
                                    Runnable after) {
        sendCleanup(name, request, (reply, error) -> {
            if (error != null) {
                LOG.debug("{} of '{}' failed; it expires: {}", purpose, name, error.toString());
            }
            after.run();
        }, error -> {
            LOG.warn("{} of '{}' failed; it expires: {}", purpose, name, error.toString());
            after.run();
        });
    }

    /**
     * Keeps a clean-up whose outcome is unknown (its reply failed {@link #uncertain uncertainly}) for the close to
     * send again; for callers that send it themselves, such as a lease's release, and learn so from its reply.
     *
     * @param name    the lock's name, for the close's warning if it cannot be settled
     * @param cleanup sends it again: a release or a queue leave by token, which does nothing once done
     */
    public void unsettled(String name, Supplier<? extends CompletableFuture<?>> cleanup) {
        Unsettled dropped;
        synchronized (lock) {
            unsettled.addLast(new Unsettled(name, cleanup));
            dropped = unsettled.size() > MAX_UNSETTLED ? unsettled.pollFirst() : null;
        }
        if (dropped != null) {
            LOG.warn("more than {} clean-ups without an answer; the close will not release '{}' again: it expires "
                    + "at the end of its lease", MAX_UNSETTLED, dropped.lock());
        }
    }

    /** @return the unsettled clean-ups, which are no longer kept: the close sends them again */
    public List<Unsettled> takeUnsettled() {
        synchronized (lock) {
            List<Unsettled> taken = new ArrayList<>(unsettled);
            unsettled.clear();
            return taken;
        }
    }

    /**
     * Whether a request's failure leaves it unknown whether it ran: a timeout (the command may never have been
     * written, or may have run unanswered), a lost connection, an interrupted wait. An error reply of Redis says
     * that the command ran and changed nothing.
     */
    public static boolean uncertain(Throwable error) {
        Throwable e = Errors.unwrap(error);
        if (e instanceof RedisCommandInterruptedException) {
            return true;
        }
        LockException translated = Errors.translate(e, "clean-up");
        return translated instanceof LockTimeoutException || translated instanceof LockConnectionException;
    }

    /**
     * Sends a request as {@link #send} does and returns its reply: the request counts as in flight until the stages
     * attached to the returned future before the reply came have run. A request refused because the client is
     * closing, or whose send throws, completes the future exceptionally.
     *
     * @param request sends the request; called at most once, here
     * @return completes with the reply, or exceptionally with its failure
     */
    public <T> CompletableFuture<T> track(Kind kind, Supplier<CompletableFuture<T>> request) {
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
     * @throws IllegalStateException for new work once the client is closing ({@link IllegalLockStateException})
     */
    <T> T call(Kind kind, Supplier<T> action) {
        if (!enter(kind)) {
            throw new IllegalLockStateException("client is closed");
        }
        try {
            return action.get();
        } finally {
            sent(kind);
            exit();
        }
    }
}
