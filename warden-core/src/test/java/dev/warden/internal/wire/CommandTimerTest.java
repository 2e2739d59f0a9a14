package dev.warden.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.Timeout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The command timer, swept by hand on a hand-set clock. */
class CommandTimerTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final CommandTimer timer = new CommandTimer(now::get, Duration.ofMillis(100));
    private final List<String> fired = new ArrayList<>();

    private Timeout schedule(String name, long millis) {
        return timer.newTimeout(t -> fired.add(name), millis, TimeUnit.MILLISECONDS);
    }

    private void advanceMillis(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Test
    void aTimeoutFiresOnTheFirstSweepAfterItsDeadlineAndNotBefore() {
        Timeout first = schedule("first", 100);
        advanceMillis(10);
        Timeout second = schedule("second", 100);
        advanceMillis(89);
        timer.sweep();
        assertEquals(List.of(), fired);
        advanceMillis(1);
        timer.sweep();
        assertEquals(List.of("first"), fired);
        assertTrue(first.isExpired());
        assertFalse(second.isExpired());
        advanceMillis(10);
        timer.sweep();
        assertEquals(List.of("first", "second"), fired);
    }

    @Test
    void aCancelledTimeoutNeverFiresAndDoesNotHoldUpTheOnesBehindIt() {
        Timeout answered = schedule("answered", 100);
        schedule("lost", 100);
        assertTrue(answered.cancel());
        assertFalse(answered.cancel());
        advanceMillis(100);
        timer.sweep();
        assertEquals(List.of("lost"), fired);
        assertTrue(answered.isCancelled());
        assertFalse(answered.isExpired());
    }

    @Test
    void anExpiredTimeoutCannotBeCancelledAfterwards() {
        Timeout timeout = schedule("late", 100);
        advanceMillis(100);
        timer.sweep();
        assertFalse(timeout.cancel());
        assertTrue(timeout.isExpired());
    }

    @Test
    void timeoutsOfOtherLengthsFireInDeadlineOrder() {
        schedule("long", 5_000);
        schedule("short", 20);
        schedule("common", 100);
        advanceMillis(20);
        timer.sweep();
        assertEquals(List.of("short"), fired);
        advanceMillis(80);
        timer.sweep();
        assertEquals(List.of("short", "common"), fired);
        advanceMillis(4_900);
        timer.sweep();
        assertEquals(List.of("short", "common", "long"), fired);
    }

    @Test
    void aFailingTaskDoesNotStopTheSweep() {
        timer.newTimeout(t -> {
            throw new IllegalStateException("boom");
        }, 100, TimeUnit.MILLISECONDS);
        schedule("after", 100);
        advanceMillis(100);
        timer.sweep();
        assertEquals(List.of("after"), fired);
    }

    @Test
    void stopReturnsWhatWasPendingAndRefusesNewTimeouts() {
        Timeout cancelled = schedule("cancelled", 100);
        Timeout pending = schedule("pending", 100);
        Timeout other = schedule("other", 7);
        cancelled.cancel();
        assertEquals(java.util.Set.of(pending, other), timer.stop());
        assertThrows(IllegalStateException.class, () -> schedule("too late", 100));
        advanceMillis(1_000);
        timer.sweep();
        assertEquals(List.of(), fired);
    }
}
