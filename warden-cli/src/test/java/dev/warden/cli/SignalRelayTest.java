package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where {@code warden run} and {@code warden lead} send a signal in each phase: the wait for the lock, before the
 * command, after; and, for {@code lead --rejoin}, the wait for the next term once the command has exited.
 */
class SignalRelayTest {
    private final SignalRelay relay = new SignalRelay(Thread.currentThread());
    private final List<String> delivered = new ArrayList<>();

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void signalWhileWaitingInterruptsTheWaiterAndIsReported() {
        relay.received("INT");
        assertThat(Thread.interrupted()).isTrue();
        assertThat(relay.pending()).isEqualTo("INT");
    }

    @Test
    void signalAsTheWaitEndsIsReturnedByAcquiredWithTheInterruptCleared() {
        relay.received("TERM");
        assertThat(relay.acquired()).isEqualTo("TERM");
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void acquiredLeavesAnInterruptNotMadeByASignal() {
        Thread.currentThread().interrupt();
        assertThat(relay.acquired()).isNull();
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void signalBetweenAcquiringAndStartingDoesNotInterruptAndReachesTheCommandWhenItStarts() {
        assertThat(relay.acquired()).isNull();
        relay.received("TERM");
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(delivered).isEmpty();
        relay.started(delivered::add);
        assertThat(delivered).containsExactly("TERM");
        assertThat(relay.pending()).isNull();
    }

    @Test
    void signalAfterTheCommandStartedGoesStraightToItOncePerSignal() {
        relay.acquired();
        relay.started(delivered::add);
        relay.received("INT");
        relay.received("TERM");
        assertThat(delivered).containsExactly("INT", "TERM");
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void signalFromAnotherThreadAsTheCommandStartsIsDeliveredExactlyOnceAndNeverInterrupts() throws Exception {
        for (int round = 0; round < 200; round++) {
            SignalRelay racing = new SignalRelay(Thread.currentThread());
            List<String> got = new ArrayList<>();
            racing.acquired();
            Thread handler = new Thread(() -> racing.received("TERM"));
            handler.start();
            racing.started(signal -> {
                synchronized (got) {
                    got.add(signal);
                }
            });
            handler.join(10_000);
            assertThat(handler.isAlive()).isFalse();
            synchronized (got) {
                assertThat(got).as("round %d", round).containsExactly("TERM");
            }
            assertThat(Thread.currentThread().isInterrupted()).as("round %d", round).isFalse();
        }
    }

    @Test
    void onceTheCommandHasEndedASignalInterruptsTheWaiterAgainForTheNextTerm() {
        relay.acquired();
        relay.started(delivered::add);
        assertThat(relay.ended()).as("no signal while the command ran").isNull();
        relay.received("TERM");
        assertThat(Thread.interrupted()).isTrue();
        assertThat(relay.pending()).isEqualTo("TERM");
        assertThat(delivered).isEmpty();
    }

    @Test
    void aSignalPassedToTheCommandIsReportedWhenItEndsSoThatWardenStopsInsteadOfWaitingAgain() {
        relay.acquired();
        relay.started(delivered::add);
        relay.received("INT");
        assertThat(relay.ended()).isEqualTo("INT");
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        // Reported once: the next term starts with nothing received.
        relay.acquired();
        relay.started(delivered::add);
        assertThat(relay.ended()).isNull();
        assertThat(delivered).containsExactly("INT");
    }

    @Test
    void aSignalKeptForACommandThatNeverStartedIsReportedWhenTheTermEnds() {
        relay.acquired();
        relay.received("TERM");
        assertThat(relay.ended()).isEqualTo("TERM");
        assertThat(relay.pending()).isNull();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void nullArgumentsAreRejectedByName() {
        assertThatNullPointerException().isThrownBy(() -> new SignalRelay(null)).withMessage("waiter");
        assertThatNullPointerException().isThrownBy(() -> relay.started(null)).withMessage("deliver");
    }
}
