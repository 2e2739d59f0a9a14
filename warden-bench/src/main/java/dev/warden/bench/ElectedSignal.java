package dev.warden.bench;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/** The future of a candidate's next election, completed from the library's elected callback. */
final class ElectedSignal {
    private final AtomicReference<CompletableFuture<Long>> next = new AtomicReference<>(new CompletableFuture<>());

    /** @return the armed future */
    CompletableFuture<Long> current() {
        return next.get();
    }

    /** @return a new armed future, in place of the last */
    CompletableFuture<Long> armNext() {
        CompletableFuture<Long> armed = new CompletableFuture<>();
        next.set(armed);
        return armed;
    }

    /** The candidate was elected now: completes the armed future with {@link System#nanoTime()}. */
    void elected() {
        next.get().complete(System.nanoTime());
    }

    /** Joining failed: completes the armed future with the error, so that the measurement fails loudly. */
    void failed(Throwable error) {
        next.get().completeExceptionally(error);
    }
}
