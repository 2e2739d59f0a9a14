package dev.warden.internal.quorum;

import dev.warden.internal.base.Errors;
import dev.warden.internal.wait.Deployment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * Sends one operation to every server of a quorum in parallel and collects each answer or failure, in server
 * order. A server that fails does not fail the whole: the caller counts, and the server logs it
 * ({@link QuorumNode#failed}). The result completes as soon as the
 * caller's rule decides (a majority agreed, or can no longer agree), so that a slow or paused server does not hold
 * up the rest; answers still missing then are {@link Outcome#pending()}.
 */
final class Fanout {
    private static final Throwable PENDING = new Throwable("no answer yet", null, false, false) {
    };

    /** One server's answer: a value, a failure, or not yet. */
    record Outcome<T>(T value, Throwable error) {
        boolean ok() {
            return error == null;
        }

        /** @return whether the server had not answered when the result was decided */
        boolean pending() {
            return error == PENDING;
        }

        /** @return whether the server answered with a failure */
        boolean failed() {
            return error != null && error != PENDING;
        }
    }

    private Fanout() {
    }

    /** Waits for every server's answer. */
    static <T> CompletableFuture<List<Outcome<T>>> all(List<QuorumNode> nodes,
                                                       Function<Deployment, CompletableFuture<T>> operation) {
        return until(nodes, operation, outcomes -> false);
    }

    /**
     * Completes when {@code decided} holds for the answers so far (missing ones pending), or when all answered.
     */
    static <T> CompletableFuture<List<Outcome<T>>> until(List<QuorumNode> nodes,
                                                         Function<Deployment, CompletableFuture<T>> operation,
                                                         Predicate<List<Outcome<T>>> decided) {
        return until(nodes, operation, decided, new CompletableFuture<>());
    }

    /**
     * As {@link #until(List, Function, Predicate)}, and tests {@code decided} again when {@code recheck} completes:
     * for a rule that depends on more than the answers (a try that heard a release meanwhile).
     */
    static <T> CompletableFuture<List<Outcome<T>>> until(List<QuorumNode> nodes,
                                                         Function<Deployment, CompletableFuture<T>> operation,
                                                         Predicate<List<Outcome<T>>> decided,
                                                         CompletableFuture<?> recheck) {
        return fan(nodes.size(), index -> operation.apply(nodes.get(index).server()),
                (index, error) -> nodes.get(index).failed(error), decided, recheck);
    }

    /**
     * Sends request {@code i} of {@code size} by {@code send}, and decides as {@link #until} does. The rule is first
     * tested once every request has been sent, even if the first answers came back meanwhile: what the caller does
     * on the decision (a give-back to the servers that had not answered) is then sent after every request of the
     * fan-out, so that on each server's connection it follows the request it undoes. (Decided before the last
     * request was sent, a try's give-back went to that server ahead of the try, which then kept its grant there.)
     *
     * @param failed told of each request that failed, by index
     */
    static <T> CompletableFuture<List<Outcome<T>>> fan(int size, IntFunction<CompletableFuture<T>> send,
                                                       BiConsumer<Integer, Throwable> failed,
                                                       Predicate<List<Outcome<T>>> decided,
                                                       CompletableFuture<?> recheck) {
        CompletableFuture<List<Outcome<T>>> result = new CompletableFuture<>();
        @SuppressWarnings("unchecked")
        Outcome<T>[] answers = new Outcome[size];
        Arrays.fill(answers, new Outcome<T>(null, PENDING));
        int[] missing = {size};
        // Whether every request was sent: until then the answers are only recorded. Guarded by answers.
        boolean[] sent = {false};
        for (int i = 0; i < size; i++) {
            int index = i;
            CompletableFuture<T> future;
            try {
                future = send.apply(i);
            } catch (RuntimeException e) {
                future = CompletableFuture.failedFuture(e);
            }
            future.whenComplete((value, error) -> {
                if (error != null) {
                    failed.accept(index, error);
                }
                List<Outcome<T>> snapshot;
                boolean done;
                synchronized (answers) {
                    answers[index] = new Outcome<>(value, error);
                    missing[0]--;
                    if (!sent[0]) {
                        return;
                    }
                    snapshot = new ArrayList<>(Arrays.asList(answers));
                    done = missing[0] == 0;
                }
                decide(result, snapshot, done, decided);
            });
        }
        List<Outcome<T>> snapshot;
        boolean done;
        synchronized (answers) {
            sent[0] = true;
            snapshot = new ArrayList<>(Arrays.asList(answers));
            done = missing[0] == 0;
        }
        decide(result, snapshot, done, decided);
        recheck.whenComplete((ignored, error) -> {
            List<Outcome<T>> again;
            synchronized (answers) {
                again = new ArrayList<>(Arrays.asList(answers));
            }
            decide(result, again, false, decided);
        });
        return result;
    }

    private static <T> void decide(CompletableFuture<List<Outcome<T>>> result, List<Outcome<T>> snapshot, boolean done,
                                   Predicate<List<Outcome<T>>> decided) {
        try {
            if (!result.isDone() && (done || decided.test(snapshot))) {
                result.complete(snapshot);
            }
        } catch (RuntimeException | Error e) {
            // A rule that throws fails the fan-out rather than leave its caller waiting.
            result.completeExceptionally(e);
        }
    }

    /** @return how many servers answered with a value that {@code yes} accepts */
    static <T> int count(List<Outcome<T>> outcomes, Predicate<T> yes) {
        int n = 0;
        for (Outcome<T> outcome : outcomes) {
            n += outcome.ok() && yes.test(outcome.value()) ? 1 : 0;
        }
        return n;
    }

    /** @return how many servers answered with a failure */
    static int failures(List<? extends Outcome<?>> outcomes) {
        int failed = 0;
        for (Outcome<?> outcome : outcomes) {
            failed += outcome.failed() ? 1 : 0;
        }
        return failed;
    }

    /** @return the first failure, or null if none failed */
    static Throwable firstFailure(List<? extends Outcome<?>> outcomes) {
        for (Outcome<?> outcome : outcomes) {
            if (outcome.failed()) {
                return Errors.unwrap(outcome.error());
            }
        }
        return null;
    }
}
