package dev.warden.cli;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * The round trip of a trivial command ({@code TIME}, else {@code PING}): every lock operation costs at least one.
 */
final class LatencyCheck {
    static final String CODE = "LATENCY";
    /** The median round trip above which the doctor warns. */
    static final Duration SLOW = Duration.ofMillis(50);

    private LatencyCheck() {
    }

    /**
     * @param command        the command timed, such as TIME
     * @param roundTripNanos at least one round trip, in ns
     * @param timeout        the command timeout the clients use
     * @return the finding
     */
    static Finding evaluate(String command, long[] roundTripNanos, Duration timeout) {
        long[] sorted = roundTripNanos.clone();
        Arrays.sort(sorted);
        long p50 = sorted[(sorted.length - 1) / 2];
        long max = sorted[sorted.length - 1];
        String observed = String.format(Locale.ROOT, "%s round trip p50 %.3f ms, max %.3f ms over %d samples",
                command, p50 / 1e6, max / 1e6, sorted.length);
        if (max * 2 > timeout.toNanos()) {
            return Finding.warn(CODE, observed, "a round trip took more than half the command timeout ("
                    + Durations.format(timeout) + "): commands may time out, and then fail loudly",
                    "find the latency (network, a busy server: SLOWLOG, LATENCY DOCTOR) or raise the timeout");
        }
        if (p50 > SLOW.toNanos()) {
            return Finding.warn(CODE, observed, "each acquire, renewal and release costs at least one round trip "
                    + "(above " + Durations.format(SLOW) + " here): locks are slow, not unsafe",
                    "run clients closer to Redis");
        }
        return Finding.ok(CODE, observed, "each acquire, renewal and release costs at least one round trip");
    }
}
