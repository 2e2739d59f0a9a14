package dev.warden.cli.doctor;

import java.util.List;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * The round trip of a trivial command ({@code TIME}, else {@code PING}): every lock operation costs at least one.
 */
final class LatencyCheck implements Check {
    static final String CODE = "LATENCY";
    /** The median round trip above which the doctor warns. */
    static final Duration SLOW = Duration.ofMillis(50);

    @Override
    public List<String> codes() {
        return List.of(CODE);
    }

    /** The round trip of {@code TIME}, the command Warden's scripts read; of {@code PING} where TIME is refused. */
    @Override
    public List<Finding> run(DoctorProbe probe) {
        DoctorProbe.Timing timing = probe.timing();
        if (timing.failure().isEmpty()) {
            return List.of(evaluate("TIME", timing.trips(), probe.options().timeout()));
        }
        String why = "TIME failed: " + timing.failure().get();
        long[] pings = new long[probe.options().samples()];
        for (int i = 0; i < pings.length; i++) {
            long start = System.nanoTime();
            DoctorProbe.Outcome<String> pong = DoctorProbe.attempt(probe.redis()::ping);
            pings[i] = System.nanoTime() - start;
            if (!pong.ok()) {
                return List.of(Finding.unchecked(CODE, why + "; PING failed: " + pong.error(),
                        "the round trip is unknown", "allow TIME for this user, or check the connection"));
            }
        }
        return List.of(evaluate("PING", pings, probe.options().timeout()));
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
                    + Finding.duration(timeout) + "): commands may time out, and then fail loudly",
                    "find the latency (network, a busy server: SLOWLOG, LATENCY DOCTOR) or raise the timeout");
        }
        if (p50 > SLOW.toNanos()) {
            return Finding.warn(CODE, observed, "each acquire, renewal and release costs at least one round trip "
                    + "(above " + Finding.duration(SLOW) + " here): locks are slow, not unsafe",
                    "run clients closer to Redis");
        }
        return Finding.ok(CODE, observed, "each acquire, renewal and release costs at least one round trip");
    }
}
