package dev.warden.cli.doctor;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The server's clock ({@code TIME}) against the client's wall clock. Redis expires keys by its wall clock: a server
 * clock that steps forward expires leases early, and one that steps back lowers the clock minimum of fencing tokens
 * after data loss. An offset between the two clocks suggests that one of them is not synchronised, and will be
 * stepped.
 */
final class ClockCheck implements Check {
    static final String CODE = "CLOCK";

    @Override
    public List<String> codes() {
        return List.of(CODE);
    }

    @Override
    public List<Finding> run(DoctorProbe probe) {
        DoctorProbe.Timing timing = probe.timing();
        if (timing.failure().isPresent()) {
            return List.of(Finding.unchecked(CODE, "TIME failed: " + timing.failure().get(),
                    "the clocks were not compared; Warden's scripts read TIME too (see ACL)",
                    "allow TIME for this user"));
        }
        return List.of(evaluate(timing.samples(), probe.options().maxClockOffset()));
    }

    /**
     * One reading: the client's wall clock when TIME was sent and when its reply came, and the server's time.
     *
     * @param sentMicros     client wall clock before, in µs since the epoch
     * @param serverMicros   the server's TIME, in µs since the epoch
     * @param receivedMicros client wall clock after, in µs since the epoch
     */
    record Sample(long sentMicros, long serverMicros, long receivedMicros) {
        /** @return server minus client, taking the client's time as the middle of the round trip, in µs */
        long offsetMicros() {
            return serverMicros - (sentMicros + receivedMicros) / 2;
        }

        /** @return half the round trip: how far the offset may be off, in µs */
        long uncertaintyMicros() {
            return (receivedMicros - sentMicros + 1) / 2;
        }
    }

    /**
     * @param samples at least one reading
     * @param bound   the largest offset that is OK
     * @return the finding
     */
    static Finding evaluate(List<Sample> samples, Duration bound) {
        long[] offsets = samples.stream().mapToLong(Sample::offsetMicros).sorted().toArray();
        long median = offsets[offsets.length / 2];
        long spread = offsets[offsets.length - 1] - offsets[0];
        long uncertainty = samples.stream().mapToLong(Sample::uncertaintyMicros).max().orElse(0);
        long boundMicros = bound.toNanos() / 1000;
        String observed = String.format(Locale.ROOT, "server clock %s the client's by %s (+-%s), spread %s over %d "
                        + "readings; bound %s", median >= 0 ? "ahead of" : "behind", ms(Math.abs(median)),
                ms(uncertainty), ms(spread), offsets.length, Finding.duration(bound));
        String fix = "run NTP (chrony, systemd-timesyncd) on both the Redis and the client machines, slewing rather "
                + "than stepping the clock";
        if (Math.abs(median) - uncertainty > boundMicros) {
            return Finding.warn(CODE, observed, "the clocks disagree by more than the bound: one of them is not "
                    + "synchronised, and a correction that steps the Redis server's clock forward expires leases "
                    + "early (a second holder can acquire before the first renews); one that steps it back lowers "
                    + "the fencing tokens issued after data loss", fix);
        }
        if (spread - 2 * uncertainty > boundMicros) {
            return Finding.warn(CODE, observed, "the offset changed by more than the bound while the doctor ran: a "
                    + "clock jumped", fix);
        }
        return Finding.ok(CODE, observed, "the clocks agree within the bound. Leases are timed on the client's "
                + "monotonic clock and expire by the server's; only a jump of the server's clock matters");
    }

    private static String ms(long micros) {
        return String.format(Locale.ROOT, "%.3f ms", micros / 1000.0);
    }
}
