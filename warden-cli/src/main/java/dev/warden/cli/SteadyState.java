package dev.warden.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The demo's steady-state phase, merged over its processes: every hold as when its acquire returned and when its
 * release started, on {@code System.nanoTime}, which every process on one Linux machine shares. Sorted by
 * acquisition, a handoff is the time from one hold's release to the next hold's acquisition, whichever processes
 * they were in; a hold that began before the previous one's release started is an overlap.
 */
final class SteadyState {
    /** One hold: when its acquire returned and when its release started. */
    record Hold(long acquiredAt, long releasedAt) {
    }

    private final List<Hold> holds = new ArrayList<>();

    /** Adds a worker's {@code HOLD <acquired> <released>} line. */
    synchronized void add(String line) {
        String[] parts = line.split(" ");
        holds.add(new Hold(Long.parseLong(parts[1]), Long.parseLong(parts[2])));
    }

    /** The merged figures; null if fewer than two holds were made. */
    synchronized Figures figures() {
        if (holds.size() < 2) {
            return null;
        }
        List<Hold> sorted = new ArrayList<>(holds);
        sorted.sort(Comparator.comparingLong(Hold::acquiredAt));
        long[] handoffs = new long[sorted.size() - 1];
        int overlaps = 0;
        for (int i = 1; i < sorted.size(); i++) {
            handoffs[i - 1] = sorted.get(i).acquiredAt() - sorted.get(i - 1).releasedAt();
            if (handoffs[i - 1] < 0) {
                overlaps++;
            }
        }
        Arrays.sort(handoffs);
        double seconds = (sorted.get(sorted.size() - 1).acquiredAt() - sorted.get(0).acquiredAt()) / 1e9;
        return new Figures(handoffs.length, handoffs.length / Math.max(seconds, 1e-9),
                percentile(handoffs, 0.50), percentile(handoffs, 0.99), overlaps);
    }

    private static long percentile(long[] sorted, double p) {
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }

    /**
     * @param handoffs   handoffs counted
     * @param perSecond  handoffs per second over the phase
     * @param p50Nanos   median handoff
     * @param p99Nanos   99th percentile handoff
     * @param overlaps   holds that began before the previous one's release started
     */
    record Figures(int handoffs, double perSecond, long p50Nanos, long p99Nanos, int overlaps) {
    }
}
