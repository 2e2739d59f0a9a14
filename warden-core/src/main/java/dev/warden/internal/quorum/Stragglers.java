package dev.warden.internal.quorum;

import dev.warden.internal.wait.Deployment;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The requests of one token that a quorum decided without: per server, the last one still unanswered, or the give-back
 * that waits for it. A later request of the token to that server ({@link #after}: the next try, a release) goes only
 * once it answered, so that it reaches the server after it. Requests on one connection arrive in the order sent,
 * except one sent by SHA that the server no longer knows (restarted, flushed): it is sent again with its source when
 * {@code NOSCRIPT} comes back, behind what was sent meanwhile, and an acquire overtaken by its own give-back would
 * leave the lock granted to nobody for a whole lease.
 */
final class Stragglers {
    private final Map<Deployment, CompletableFuture<?>> last = new ConcurrentHashMap<>();

    /** Remembers a request of the token that has not answered on this server; later ones wait for it. */
    void add(Deployment server, CompletableFuture<?> unanswered) {
        last.put(server, unanswered);
    }

    /** Sends {@code request} now, or once the token's last request to this server answered, however it ends. */
    <T> CompletableFuture<T> after(Deployment server, Supplier<CompletableFuture<T>> request) {
        CompletableFuture<?> before = last.get(server);
        if (before == null || before.isDone()) {
            return request.get();
        }
        return before.handle((ignored, error) -> null).thenCompose(ignored -> request.get());
    }
}
