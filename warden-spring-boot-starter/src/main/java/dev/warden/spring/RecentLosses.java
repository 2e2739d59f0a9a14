package dev.warden.spring;

import dev.warden.LockListener;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Remembers the leases the client lost in the last few minutes, for the health indicator: a listener, so it learns
 * of losses the watchdog finds as well as those a release finds.
 */
final class RecentLosses implements LockListener {
    /** A lost lease, as the health endpoint shows it. */
    record Lost(Instant at, String lock, Cause cause, String detail) {
    }

    /** Losses kept: a count beyond it shows as this many. */
    static final int KEPT = 1_000;

    private final Clock clock;
    private final Duration window;
    /** The losses within the window, oldest first, at most {@link #KEPT}. Guarded by this. */
    private final Deque<Lost> losses = new ArrayDeque<>();

    RecentLosses(Clock clock, Duration window) {
        this.clock = clock;
        this.window = window;
    }

    @Override
    public synchronized void onLost(Loss event) {
        expire();
        losses.addLast(new Lost(clock.instant(), event.lock(), event.cause(), event.detail()));
        if (losses.size() > KEPT) {
            losses.removeFirst();
        }
    }

    /** @return how many leases were lost within the window, up to {@link #KEPT} */
    synchronized int count() {
        expire();
        return losses.size();
    }

    /** @return the newest loss within the window, if any */
    synchronized Lost last() {
        expire();
        return losses.peekLast();
    }

    Duration window() {
        return window;
    }

    private void expire() {
        Instant oldest = clock.instant().minus(window);
        while (!losses.isEmpty() && losses.peekFirst().at().isBefore(oldest)) {
            losses.removeFirst();
        }
    }
}
