package dev.warden.faults;

import dev.warden.faults.History.Acquisition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a run's history. Each violation is described in words; a correct lock produces none.
 *
 * <ol>
 *   <li>fencing: the store accepted tokens in non-decreasing order, every accepted write belongs to an
 *       acquisition with that token, and a write was rejected only if a later acquisition (higher token) had
 *       already been granted, never because tokens went backwards;</li>
 *   <li>mutual exclusion (unless the run loses data): no two holders' valid intervals overlap;</li>
 *   <li>loss reporting: a release that returned false had its loss reported through onLost, and no release
 *       returned true after an acquisition with a higher token had already been granted;</li>
 *   <li>tokens: an acquisition granted before another was requested has a lower token;</li>
 *   <li>liveness: after every fault, some acquisition succeeds within the bound, and every worker the fault struck
 *       (cut off or slowed down) acquires again before the workload ends.</li>
 * </ol>
 */
final class Checker {
    /**
     * When a fault lasted (System.nanoTime), and the workers it struck that must acquire again after it.
     *
     * @param victims worker ids ("w0"), empty for a fault of the servers or one whose worker may stay idle
     */
    record Window(long from, long to, List<String> victims) {
    }

    private final List<String> violations = new ArrayList<>();
    private final Map<String, Integer> counts = new HashMap<>();

    List<String> violations() {
        return violations;
    }

    Map<String, Integer> counts() {
        return counts;
    }

    void check(History history, Map<String, List<String>> storeLogs, boolean dataLoss, List<Window> faultWindows,
               long livenessBoundNanos, long workloadEnd) {
        Map<String, List<Acquisition>> byName = new HashMap<>();
        for (Acquisition a : history.acquisitions) {
            byName.computeIfAbsent(a.name(), n -> new ArrayList<>()).add(a);
        }
        for (Map.Entry<String, List<Acquisition>> entry : byName.entrySet()) {
            List<Acquisition> acquisitions = entry.getValue();
            fencing(entry.getKey(), acquisitions, storeLogs.getOrDefault(entry.getKey(), List.of()));
            if (!dataLoss) {
                mutualExclusion(acquisitions);
            }
            lossReporting(acquisitions);
            tokenOrder(acquisitions);
        }
        liveness(history, faultWindows, livenessBoundNanos, workloadEnd);
        recovery(history, faultWindows, workloadEnd);
    }

    void fencing(String name, List<Acquisition> acquisitions, List<String> log) {
        Set<String> known = new HashSet<>();
        for (Acquisition a : acquisitions) {
            known.add(a.fence() + " " + a.op() + "a");
            known.add(a.fence() + " " + a.op() + "b");
        }
        long highest = 0;
        for (String entry : log) {
            long fence = Long.parseLong(entry.substring(0, entry.indexOf(' ')));
            if (fence < highest) {
                violate("fencing", "store for '%s' accepted token %d after %d", name, fence, highest);
            }
            if (!known.contains(entry)) {
                violate("fencing", "store for '%s' accepted a write no acquisition made: %s", name, entry);
            }
            highest = Math.max(highest, fence);
        }
        List<Acquisition> byGrant = new ArrayList<>(acquisitions);
        byGrant.sort(Comparator.comparingLong(Acquisition::acquired));
        for (Acquisition a : acquisitions) {
            checkRejection(name, a, a.write1Accepted(), a.write1End(), byGrant);
            checkRejection(name, a, a.write2Accepted(), a.write2End(), byGrant);
        }
    }

    private void checkRejection(String name, Acquisition a, boolean accepted, long writeEnd, List<Acquisition> byGrant) {
        if (accepted) {
            return;
        }
        count("stale writes rejected");
        for (Acquisition other : byGrant) {
            if (other.acquired() - writeEnd > 0) {
                break;
            }
            if (other.fence() > a.fence()) {
                return;
            }
        }
        violate("fencing", "store for '%s' rejected %s's token %d though no later acquisition had been granted",
                name, a.op(), a.fence());
    }

    private void mutualExclusion(List<Acquisition> acquisitions) {
        List<Acquisition> sorted = new ArrayList<>(acquisitions);
        sorted.sort(Comparator.comparingLong(Acquisition::acquired));
        Acquisition latest = null;
        for (Acquisition a : sorted) {
            if (a.validEnd() - a.acquired() <= 0) {
                // The reply came after the lease had already ended: the holder never validly held the lock.
                count("leases ended before their acquire returned");
                continue;
            }
            if (latest != null && a.acquired() - latest.validEnd() < 0) {
                violate("mutual exclusion", "%s (token %d) was granted '%s' while %s (token %d) still validly held it",
                        a.op(), a.fence(), a.name(), latest.op(), latest.fence());
            }
            if (latest == null || a.validEnd() - latest.validEnd() > 0) {
                latest = a;
            }
        }
    }

    private void lossReporting(List<Acquisition> acquisitions) {
        List<Acquisition> sorted = new ArrayList<>(acquisitions);
        sorted.sort(Comparator.comparingLong(Acquisition::acquired));
        for (Acquisition a : acquisitions) {
            if (a.released().equals("false")) {
                count("lost leases");
                if (a.lostAt() < 0) {
                    violate("loss reporting", "%s's release returned false but its loss was never reported", a.op());
                }
            } else if (a.released().equals("true")) {
                for (Acquisition other : sorted) {
                    if (other.acquired() - a.releaseStart() >= 0) {
                        break;
                    }
                    // A higher token was granted after this one; if its holder heard so before this release
                    // began, the release cannot have found this token still owning the lock.
                    if (other.fence() > a.fence()) {
                        violate("loss reporting", "%s's release returned true though %s (token %d > %d) was granted "
                                + "'%s' before it", a.op(), other.op(), other.fence(), a.fence(), a.name());
                        break;
                    }
                }
            }
        }
    }

    void tokenOrder(List<Acquisition> acquisitions) {
        List<Acquisition> byGrant = new ArrayList<>(acquisitions);
        byGrant.sort(Comparator.comparingLong(Acquisition::acquired));
        List<Acquisition> byRequest = new ArrayList<>(acquisitions);
        byRequest.sort(Comparator.comparingLong(Acquisition::requested));
        int i = 0;
        long maxFence = Long.MIN_VALUE;
        Acquisition maxHolder = null;
        for (Acquisition b : byRequest) {
            while (i < byGrant.size() && byGrant.get(i).acquired() - b.requested() < 0) {
                if (byGrant.get(i).fence() > maxFence) {
                    maxFence = byGrant.get(i).fence();
                    maxHolder = byGrant.get(i);
                }
                i++;
            }
            if (maxHolder != null && b.fence() <= maxFence) {
                violate("token order", "%s got token %d for '%s', not above %d granted earlier to %s",
                        b.op(), b.fence(), b.name(), maxFence, maxHolder.op());
            }
        }
    }

    void liveness(History history, List<Window> faultWindows, long bound, long workloadEnd) {
        for (Window window : faultWindows) {
            long end = window.to();
            if (workloadEnd - (end + bound) < 0) {
                continue;
            }
            boolean progressed = history.acquisitions.stream()
                    .anyMatch(a -> a.acquired() - end >= 0 && a.acquired() - (end + bound) <= 0);
            if (!progressed) {
                violate("liveness", "no acquisition within %d ms after a fault ended", bound / 1_000_000);
            }
        }
    }

    /** Every worker a fault struck acquires again between the fault's end and the workload's. */
    void recovery(History history, List<Window> faultWindows, long workloadEnd) {
        for (Window window : faultWindows) {
            for (String victim : window.victims()) {
                boolean back = history.acquisitions.stream().anyMatch(a -> a.op().startsWith(victim + ".")
                        && a.acquired() - window.to() >= 0 && a.acquired() - workloadEnd <= 0);
                if (!back) {
                    violate("liveness", "%s did not acquire again in the %d ms between the end of its fault and the "
                            + "end of the workload", victim, (workloadEnd - window.to()) / 1_000_000);
                }
            }
        }
    }

    private void violate(String check, String format, Object... args) {
        count("violations: " + check);
        if (violations.size() < 50) {
            violations.add(check + ": " + String.format(format, args));
        }
    }

    private void count(String what) {
        counts.merge(what, 1, Integer::sum);
    }
}
