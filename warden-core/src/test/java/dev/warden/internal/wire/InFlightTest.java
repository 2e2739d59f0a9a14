package dev.warden.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class InFlightTest {
    private final InFlight inFlight = new InFlight();

    @Test
    void aCallbackThatThrowsCompletesTheCallersFutureInsteadOfLeavingItIncomplete() {
        CompletableFuture<String> reply = new CompletableFuture<>();
        CompletableFuture<Object> caller = new CompletableFuture<>();
        inFlight.send(InFlight.Kind.WORK, () -> reply, (value, error) -> {
            throw new IllegalStateException("unexpected reply " + value);
        }, caller::completeExceptionally);
        assertThat(inFlight.count()).isEqualTo(1);
        reply.complete("surprise");
        assertThat(caller).isCompletedExceptionally();
        assertThat(caller.handle((v, e) -> e.getMessage()).join()).isEqualTo("unexpected reply surprise");
        assertThat(inFlight.count()).isZero();
    }

    @Test
    void aRequestThatCannotBeSentGoesToTheFailureAndIsNotCounted() {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        inFlight.send(InFlight.Kind.WORK, () -> {
            throw new IllegalStateException("connection is closed");
        }, (value, error) -> { }, failed::set);
        assertThat(failed.get()).hasMessage("connection is closed");
        assertThat(inFlight.count()).isZero();
    }

    @Test
    void closingRefusesNewWorkButLetsCleanUpsThroughAndWaitsForThem() throws InterruptedException {
        inFlight.close();
        AtomicReference<Throwable> refused = new AtomicReference<>();
        inFlight.send(InFlight.Kind.WORK, () -> {
            throw new AssertionError("new work must not be sent after close");
        }, (value, error) -> { }, refused::set);
        assertThat(refused.get()).isInstanceOf(IllegalStateException.class).hasMessage("client is closed");

        CompletableFuture<String> release = new CompletableFuture<>();
        CompletableFuture<String> nested = new CompletableFuture<>();
        inFlight.send(InFlight.Kind.CLEANUP, () -> release,
                (value, error) -> inFlight.send(InFlight.Kind.CLEANUP, () -> nested, (v, e) -> { }, e -> { }),
                e -> { });
        assertThat(inFlight.awaitNone(TimeUnit.MILLISECONDS.toNanos(50))).isFalse();
        release.complete("1");
        // The clean-up sent from the callback is counted before its parent stops counting.
        assertThat(inFlight.count()).isEqualTo(1);
        assertThat(inFlight.awaitNone(TimeUnit.MILLISECONDS.toNanos(50))).isFalse();
        nested.complete("1");
        assertThat(inFlight.awaitNone(TimeUnit.MILLISECONDS.toNanos(50))).isTrue();
    }

    @Test
    void aBlockingCallIsCountedWhileItRunsAndRefusedAsWorkOnceClosing() {
        int during = inFlight.call(InFlight.Kind.WORK, inFlight::count);
        assertThat(during).isEqualTo(1);
        assertThat(inFlight.count()).isZero();
        inFlight.close();
        assertThat(inFlight.call(InFlight.Kind.CLEANUP, () -> "released")).isEqualTo("released");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> inFlight.call(InFlight.Kind.WORK, () -> "x"))
                .isInstanceOf(IllegalStateException.class);
    }
}
