package dev.warden.internal.base;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@link Futures#whenDone}: the callback runs, and what it throws reaches the log, not a future nobody reads. */
class FuturesTest {
    @Test
    void aCallbackThatThrowsIsLoggedWithItsLock() {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            AtomicReference<String> seen = new AtomicReference<>();
            CompletableFuture<String> future = new CompletableFuture<>();
            Futures.whenDone(future, (value, error) -> {
                seen.set(value);
                throw new IllegalStateException("bookkeeping bug");
            }, "the end of an acquisition", "orders");
            future.complete("lease");
            assertThat(seen.get()).isEqualTo("lease");
        } finally {
            System.setErr(original);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log).contains("the end of an acquisition of lock 'orders' failed after its future was done")
                .contains("IllegalStateException: bookkeeping bug");
    }
}
