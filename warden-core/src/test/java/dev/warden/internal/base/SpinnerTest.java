package dev.warden.internal.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SpinnerTest {
    private static final long LONG_BUDGET = TimeUnit.SECONDS.toNanos(20);
    private final CompletableFuture<String> reply = new CompletableFuture<>();

    @Test
    void aSoleCallerSpinsUntilTheReplyComesAndEarnsCredit() throws Exception {
        Spinner spinner = new Spinner(LONG_BUDGET);
        spinner.enter();
        Thread replier = new Thread(() -> reply.complete("OK"));
        replier.start();
        assertTrue(spinner.spin(reply, System.nanoTime(), () -> true));
        spinner.exit();
        replier.join();
        assertEquals(1, spinner.credit());
        assertEquals(0, spinner.callers());
    }

    @Test
    void aSpinStopsAsSoonAsAnotherThreadEntersACall() throws Exception {
        Spinner spinner = new Spinner(LONG_BUDGET);
        spinner.enter();
        CountDownLatch entered = new CountDownLatch(1);
        Thread other = new Thread(() -> {
            spinner.enter();
            entered.countDown();
        });
        other.start();
        assertFalse(spinner.spin(reply, System.nanoTime(), () -> true));
        assertTrue(entered.await(10, TimeUnit.SECONDS));
        assertEquals(2, spinner.callers());
        // Stopping for another caller is no miss: the credit is unchanged.
        assertEquals(0, spinner.credit());
    }

    @Test
    void aSpinStopsWhenTheReplyCameWithoutSettlingTheWait() {
        Spinner spinner = new Spinner(LONG_BUDGET);
        spinner.enter();
        assertFalse(spinner.spin(reply, System.nanoTime(), () -> false));
        assertEquals(0, spinner.credit());
    }

    @Test
    void aSpinStopsWhenTheThreadIsInterruptedAndKeepsTheFlag() {
        Spinner spinner = new Spinner(LONG_BUDGET);
        spinner.enter();
        Thread.currentThread().interrupt();
        try {
            assertFalse(spinner.spin(reply, System.nanoTime(), () -> true));
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aZeroBudgetNeverSpins() {
        Spinner spinner = new Spinner(0);
        spinner.enter();
        assertFalse(spinner.spin(reply, System.nanoTime(), () -> true));
        reply.complete("OK");
        assertTrue(spinner.spin(reply, System.nanoTime(), () -> true));
        assertEquals(0, spinner.credit());
    }

    @Test
    void spinsThatRunOutCostCreditSoThatLaterWaitsParkAtOnceExceptForProbes() {
        Spinner spinner = new Spinner(TimeUnit.MILLISECONDS.toNanos(5));
        spinner.enter();
        long start = System.nanoTime();
        assertFalse(spinner.spin(reply, start, () -> true));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(5));
        assertEquals(-1, spinner.credit());
        // Without credit, fifteen waits skip the spin (a spin would change the credit either way) ...
        for (int i = 0; i < 15; i++) {
            assertFalse(spinner.spin(reply, System.nanoTime(), () -> true));
            assertEquals(-1, spinner.credit());
        }
        // ... and the sixteenth probes: it spins, runs out again, and pays.
        assertFalse(spinner.spin(reply, System.nanoTime(), () -> true));
        assertEquals(-2, spinner.credit());
        // Once replies come again, skipped waits earn nothing and each probe that gets its reply earns one back.
        reply.complete("OK");
        for (int i = 0; i < 15; i++) {
            assertTrue(spinner.spin(reply, System.nanoTime(), () -> true));
            assertEquals(-2, spinner.credit());
        }
        assertTrue(spinner.spin(reply, System.nanoTime(), () -> true));
        assertEquals(-1, spinner.credit());
    }
}
