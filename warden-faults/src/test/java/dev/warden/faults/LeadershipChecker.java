package dev.warden.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a leadership run's merged history ({@link LeaderWorker}): one election, candidates in several JVMs.
 *
 * <p>A term is believed from its elected call until the first of: its revoked call, the worker's stepDown or close
 * of it (QUIT), and the moment its candidate's own view ({@code term()}, that is {@code isLeader()}) was seen to
 * have ended it. That last is the lock checker's "valid until the local deadline" for a candidate: the lease's
 * deadline is not visible through {@code Leadership}, but {@code isLeader()} turns false at it, so the sampler's
 * first sample that found it false ends the belief, however late the revoked call comes. Only when the sampler
 * itself did not run between its last true and its first false sample (a gap over
 * {@link LeaderWorker#STALL_NANOS}: the process was stopped) does the belief end at the last true sample: a
 * stopped process did nothing as leader in between, and its deadline fell somewhere in the gap.
 *
 * <ol>
 *   <li>exclusion: no two believed terms overlap, except terms that span a loss of the server's data
 *       ({@link Checker.Window#spans}'s rule: elected before the loss ended, believed after it began);</li>
 *   <li>epochs: believed terms, in the order they were elected, have strictly rising epochs (pairs with a loss of
 *       data between them aside);</li>
 *   <li>reporting: every elected has its revoked, after it, unless the candidate still led at the end (STILL);
 *       no revoked without an elected;</li>
 *   <li>liveness: after the last fault ends, a term is believed within one lease plus the candidate's retry delay
 *       (1 s), plus {@link #SLACK_NANOS} for the machine's load.</li>
 * </ol>
 */
final class LeadershipChecker {
    /** What a loaded machine adds to the liveness bound: JVM pauses, callbacks queued behind others. */
    static final long SLACK_NANOS = 1_000_000_000L;
    /** The candidate's retry delay after a failed join (Candidate.RETRY). */
    static final long RETRY_NANOS = 1_000_000_000L;

    /** One term as the history shows it; {@code end} -1 while unknown. */
    record Believed(String c, long epoch, long start, long end, String cause) {
        /**
         * {@link Checker.Window#spans}'s rule, with the election for the request: a term elected before the loss
         * ended (its lease may be one the lost data held) and believed after it began. A candidate waits in the
         * queue for as long as it takes, unlike a lock's bounded acquire, so its join would excuse nearly every
         * term; a grant of the server that lost its data is told elected before the loss ends.
         */
        boolean spans(Checker.Window w) {
            return w.lostData() && start - w.to() < 0 && end - w.from() > 0;
        }
    }

    private final List<String> violations = new ArrayList<>();
    private final Map<String, Integer> counts = new HashMap<>();
    private final long leaseNanos;

    LeadershipChecker(java.time.Duration lease) {
        this.leaseNanos = lease.toNanos();
    }

    List<String> violations() {
        return violations;
    }

    Map<String, Integer> counts() {
        return counts;
    }

    /**
     * @param dataLoss whether the run may lose the server's data (then terms spanning a loss are not bound)
     * @param windows  the run's faults
     * @param start    when the workload started
     * @param end      when it ended
     */
    void check(History history, boolean dataLoss, List<Checker.Window> windows, long start, long end) {
        List<Checker.Window> losses = windows.stream().filter(w -> dataLoss && w.lostData()).toList();
        Map<String, History.TermEvent> elected = new HashMap<>();
        Map<String, History.TermEvent> revoked = new HashMap<>();
        Map<String, Long> quit = new HashMap<>();
        Map<String, Long> still = new HashMap<>();
        for (History.TermEvent e : history.termEvents) {
            String key = e.c() + "#" + e.epoch();
            switch (e.what()) {
                case "ELECTED" -> {
                    if (elected.put(key, e) != null) {
                        violate("reporting", "%s was told elected twice for epoch %d", e.c(), e.epoch());
                    }
                }
                case "REVOKED" -> {
                    if (revoked.put(key, e) != null) {
                        violate("reporting", "%s was told revoked twice for epoch %d", e.c(), e.epoch());
                    }
                    count("revoked " + e.cause());
                }
                case "QUIT" -> quit.merge(key, e.t(), Math::min);
                case "STILL" -> still.put(key, e.t());
                default -> throw new IllegalStateException(e.what());
            }
        }
        Map<String, History.NotLeader> notLeader = new HashMap<>();
        history.notLeaders.forEach(n -> notLeader.putIfAbsent(n.c() + "#" + n.epoch(), n));
        List<Believed> terms = new ArrayList<>();
        for (History.TermEvent e : elected.values()) {
            count("elections");
            String key = e.c() + "#" + e.epoch();
            History.TermEvent r = revoked.get(key);
            long termEnd;
            if (r == null) {
                if (!still.containsKey(key)) {
                    violate("reporting", "%s was elected for epoch %d and never told revoked", e.c(), e.epoch());
                }
                termEnd = still.containsKey(key) ? end : Long.MAX_VALUE;
            } else {
                if (r.t() - e.t() < 0) {
                    violate("reporting", "%s was told revoked for epoch %d before elected", e.c(), e.epoch());
                }
                termEnd = r.t();
            }
            Long q = quit.get(key);
            if (q != null && q - termEnd < 0) {
                termEnd = q;
            }
            // The end its own view showed: the first sample that found isLeader() false, if before the above.
            long lastTrue = r == null ? -1 : r.lastTrue();
            History.NotLeader n = notLeader.get(key);
            if (n != null) {
                lastTrue = Math.max(lastTrue, n.lastTrue());
                if (n.firstFalse() - termEnd < 0) {
                    termEnd = n.firstFalse();
                }
            }
            // Its sampler (the worker's loop) did not run for over a stall before that end: the process was
            // stopped, and did nothing as leader since its last sample that saw the term current.
            if (lastTrue - e.t() < 0) {
                lastTrue = e.t();
            }
            if ((r != null || n != null) && termEnd - lastTrue > LeaderWorker.STALL_NANOS) {
                termEnd = lastTrue;
                count("beliefs ended in a stall of their worker");
            }
            if (termEnd - e.t() < 0) {
                termEnd = e.t();
            }
            terms.add(new Believed(e.c(), e.epoch(), e.t(), termEnd, r == null ? "STILL" : r.cause()));
        }
        for (History.TermEvent r : revoked.values()) {
            if (!elected.containsKey(r.c() + "#" + r.epoch())) {
                violate("reporting", "%s was told revoked for epoch %d, never elected", r.c(), r.epoch());
            }
        }
        terms.sort(Comparator.comparingLong(Believed::start));
        List<Believed> believed = terms.stream().filter(t -> t.end() - t.start() > 0).toList();
        count("terms believed", believed.size());

        // 1. exclusion, among the terms that span no loss.
        List<Believed> bound = new ArrayList<>();
        for (Believed t : believed) {
            if (losses.stream().anyMatch(t::spans)) {
                count("terms spanning a loss of data");
            } else {
                bound.add(t);
            }
        }
        Believed latest = null;
        for (Believed t : bound) {
            if (latest != null && t.start() - latest.end() < 0) {
                violate("leader exclusion", "%s (epoch %d) believed it led from %d while %s (epoch %d) believed so "
                                + "until %d (%.1f ms of overlap, %s)", t.c(), t.epoch(), t.start(), latest.c(),
                        latest.epoch(), latest.end(), (Math.min(latest.end(), t.end()) - t.start()) / 1e6,
                        latest.cause());
            }
            if (latest == null || t.end() - latest.end() > 0) {
                latest = t;
            }
        }

        // 2. epochs rise, by election time, between terms with no loss of data between them.
        for (int i = 1; i < believed.size(); i++) {
            Believed p = believed.get(i - 1);
            Believed n = believed.get(i);
            boolean lossBetween = losses.stream().anyMatch(w -> w.from() - n.start() < 0 && w.to() - p.start() > 0);
            if (!lossBetween && n.epoch() <= p.epoch()) {
                violate("epochs", "%s was elected with epoch %d after %s's epoch %d", n.c(), n.epoch(), p.c(),
                        p.epoch());
            }
        }

        // 4. liveness after the faults, and the longest gap without a leader after them.
        long after = windows.stream().mapToLong(Checker.Window::to).reduce(start, (a, b) -> b - a > 0 ? b : a);
        long bound4 = leaseNanos + RETRY_NANOS + SLACK_NANOS;
        long covered = after;
        long longest = 0;
        boolean first = true;
        for (Believed t : believed) {
            if (t.end() - covered <= 0) {
                continue;
            }
            long gap = Math.max(0, t.start() - covered);
            if (first) {
                first = false;
                counts.put("ms to a leader after the faults", (int) (gap / 1_000_000));
                if (gap > bound4) {
                    violate("liveness", "no leader for %d ms after the faults ended (bound %d ms)", gap / 1_000_000,
                            bound4 / 1_000_000);
                }
            }
            longest = Math.max(longest, gap);
            covered = t.end();
        }
        if (first && end - after > bound4) {
            violate("liveness", "no leader in the %d ms after the faults ended", (end - after) / 1_000_000);
        }
        counts.put("longest leaderless ms after the faults", (int) (longest / 1_000_000));
        count("stalls of a worker", history.stalls.size());
    }

    private void violate(String check, String format, Object... args) {
        count("violations: " + check);
        if (violations.size() < 50) {
            violations.add(check + ": " + String.format(format, args));
        }
    }

    private void count(String what) {
        count(what, 1);
    }

    private void count(String what, int n) {
        counts.merge(what, n, Integer::sum);
    }
}
