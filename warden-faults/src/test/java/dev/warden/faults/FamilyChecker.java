package dev.warden.faults;

import dev.warden.faults.History.Acquisition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a run of the read-write lock and the semaphore ({@link FamilyLocks}): the lock checks where they apply to
 * each role's name (fencing at the store, liveness), and per lock, joining its roles:
 *
 * <ol>
 *   <li>exclusion (unless the run loses data): no writer's valid interval overlaps any other holder's; never more
 *       semaphore permits with valid intervals at once than the semaphore has;</li>
 *   <li>loss reporting: a release that returned false had its loss reported; no release returned true after a
 *       writer with a higher token had been granted (read-write lock);</li>
 *   <li>tokens: writers' tokens rise in grant order; a reader's token is at least every writer's granted before the
 *       reader asked, and at most that of any writer that asked after the reader was granted; a semaphore's permit
 *       tokens rise in grant order;</li>
 *   <li>close, as for a lock: after a client is closed mid-flight, no lease of it is still valid, and others take
 *       what it held within a lease (plus a second): a writer the read lock it held, anyone the write lock, and
 *       for a permit, the semaphore is held to its capacity by leases not of the closed client.</li>
 * </ol>
 *
 * <p>An administrator's forceRelease names the whole lock (its base: every holder) or one half of a read-write lock
 * (its role, {@code prices#r} or {@code prices#w}: the readers, or the writer, alone).
 */
final class FamilyChecker {
    private final Checker lockChecks = new Checker();

    /** The lease of the run's locks, for the close rule. */
    FamilyChecker lease(java.time.Duration lease) {
        lockChecks.lease(lease);
        return this;
    }
    private final List<String> violations = new ArrayList<>();
    private final Map<String, Integer> counts = new HashMap<>();

    List<String> violations() {
        List<String> all = new ArrayList<>(lockChecks.violations());
        all.addAll(violations);
        return all;
    }

    Map<String, Integer> counts() {
        Map<String, Integer> all = new HashMap<>(lockChecks.counts());
        counts.forEach((key, value) -> all.merge(key, value, Integer::sum));
        return all;
    }

    void check(History history, Map<String, List<String>> storeLogs, boolean dataLoss,
               List<Checker.Window> faultWindows,
               long livenessBoundNanos, long workloadEnd) {
        Map<String, List<Acquisition>> byRoleName = new HashMap<>();
        Map<String, List<Acquisition>> byLock = new HashMap<>();
        // An administrator's forceRelease of a read-write lock or a semaphore removes every holder: their valid
        // intervals end at its start; a client closed mid-flight ends its holders' at the close's start.
        List<Acquisition> all = lockChecks.forced(history, (force, name) -> force.name().equals(FamilyLocks.base(name))
                || force.name().equals(name), true);
        for (Acquisition a : all) {
            byRoleName.computeIfAbsent(a.name(), n -> new ArrayList<>()).add(a);
            byLock.computeIfAbsent(FamilyLocks.base(a.name()), n -> new ArrayList<>()).add(a);
        }
        byRoleName.forEach((name, acquisitions) ->
                lockChecks.fencing(name, acquisitions, storeLogs.getOrDefault(name, List.of())));
        lockChecks.liveness(history, faultWindows, livenessBoundNanos, workloadEnd);
        lockChecks.recovery(history, faultWindows, workloadEnd);
        lockChecks.closes(history, all, workloadEnd, (name, closed, by) -> taken(byLock.getOrDefault(
                FamilyLocks.base(name), List.of()), name, closed, by));
        // Where the lock server lost its data, the holders that span the loss may overlap those granted after it
        // until they learn of it; every other holder is bound, as in the lock's checker (Checker.Window#spans).
        List<Checker.Window> losses = faultWindows.stream().filter(w -> dataLoss && w.lostData()).toList();
        lockChecks.dataLoss(history, all, losses);
        for (List<Acquisition> acquisitions : byLock.values()) {
            lossReported(acquisitions);
            List<Acquisition> bound = lockChecks.unspanned(acquisitions, losses);
            String name = acquisitions.get(0).name();
            if (FamilyLocks.semaphore(name)) {
                permitLimit(bound, FamilyLocks.permits(name));
                lockChecks.tokenOrder(acquisitions);
            } else {
                writersExclude(bound);
                readWriteReleases(acquisitions, dataLoss);
                lockChecks.tokenOrder(writers(acquisitions));
                readerTokens(acquisitions, dataLoss);
            }
        }
    }

    /**
     * Whether others took what a closed client held, after its close began and by {@code by}: a writer the read lock
     * (readers share it whether or not the closed reader's lease lingers), any holder the write lock, and a
     * semaphore's every permit at once, held by leases not of the closed client (its new client's count).
     */
    private static boolean taken(List<Acquisition> lock, String name, History.Closed closed, long by) {
        String prefix = closed.worker() + ".";
        String role = FamilyLocks.role(name);
        List<Acquisition> others = lock.stream().filter(a -> !a.op().startsWith(prefix)
                || a.acquired() - closed.end() > 0).toList();
        if (!FamilyLocks.semaphore(name)) {
            return others.stream().anyMatch(a -> (role.equals("w") || writer(a))
                    && a.acquired() - closed.start() > 0 && a.acquired() - by <= 0);
        }
        int permits = FamilyLocks.permits(name);
        for (Acquisition a : others) {
            long t = a.acquired();
            if (t - closed.start() <= 0 || t - by > 0) {
                continue;
            }
            long at = others.stream().filter(o -> o.acquired() - t <= 0 && o.validEnd() - t > 0).count();
            if (at >= permits) {
                return true;
            }
        }
        return false;
    }

    private static boolean writer(Acquisition a) {
        return FamilyLocks.role(a.name()).equals("w");
    }

    private static List<Acquisition> writers(List<Acquisition> acquisitions) {
        return acquisitions.stream().filter(FamilyChecker::writer).toList();
    }

    /** Holders whose valid interval is not empty, by acquisition. */
    private List<Acquisition> validHolders(List<Acquisition> acquisitions) {
        List<Acquisition> valid = new ArrayList<>();
        for (Acquisition a : acquisitions) {
            if (a.validEnd() - a.acquired() > 0) {
                valid.add(a);
            } else {
                count("leases ended before their acquire returned");
            }
        }
        valid.sort(Comparator.comparingLong(Acquisition::acquired));
        return valid;
    }

    private void writersExclude(List<Acquisition> acquisitions) {
        List<Acquisition> valid = validHolders(acquisitions);
        for (Acquisition w : valid) {
            if (!writer(w)) {
                continue;
            }
            for (Acquisition other : valid) {
                if (other != w && other.acquired() - w.validEnd() < 0 && w.acquired() - other.validEnd() < 0) {
                    violate("exclusion", "writer %s (token %d) of '%s' overlapped %s %s (token %d)", w.op(), w.fence(),
                            FamilyLocks.base(w.name()), writer(other) ? "writer" : "reader", other.op(),
                            other.fence());
                }
            }
        }
    }

    private void permitLimit(List<Acquisition> acquisitions, int permits) {
        // A sweep over the valid intervals' starts and ends; an end sorts before a start at the same instant.
        List<long[]> events = new ArrayList<>();
        for (Acquisition a : validHolders(acquisitions)) {
            events.add(new long[] {a.acquired(), 1});
            events.add(new long[] {a.validEnd(), -1});
        }
        events.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
        int held = 0;
        int most = 0;
        for (long[] event : events) {
            held += (int) event[1];
            most = Math.max(most, held);
        }
        counts.merge("most permits held at once", most, Math::max);
        if (most > permits) {
            violate("permit limit", "%d valid permit leases of '%s' at once, which has %d", most,
                    FamilyLocks.base(acquisitions.get(0).name()), permits);
        }
    }

    private void lossReported(List<Acquisition> acquisitions) {
        for (Acquisition a : acquisitions) {
            if (a.released().equals("false")) {
                count("lost leases");
                // A release after its client's close returns false without a loss reported: the close ended it.
                if (a.lostAt() < 0 && !lockChecks.closedUnder(a)) {
                    violate("loss reporting", "%s's release returned false but its loss was never reported", a.op());
                }
            }
        }
    }

    /**
     * No holder's release returned true after a writer with a higher token had been granted before it began. A
     * reader's token is the last writer's, which data loss can take with it (the reader then gets 0), so with data
     * loss only writers' releases are judged by their tokens.
     */
    private void readWriteReleases(List<Acquisition> acquisitions, boolean dataLoss) {
        List<Acquisition> writers = new ArrayList<>(writers(acquisitions));
        writers.sort(Comparator.comparingLong(Acquisition::acquired));
        for (Acquisition a : acquisitions) {
            if (!a.released().equals("true") || (dataLoss && !writer(a))) {
                continue;
            }
            for (Acquisition w : writers) {
                if (w.acquired() - a.releaseStart() >= 0) {
                    break;
                }
                if (w.fence() > a.fence()) {
                    violate("loss reporting", "%s's release returned true though writer %s (token %d > %d) was "
                            + "granted before it", a.op(), w.op(), w.fence(), a.fence());
                    break;
                }
            }
        }
    }

    /** @param dataLoss whether a reader may find the last writer's token lost, and get 0 */
    private void readerTokens(List<Acquisition> acquisitions, boolean dataLoss) {
        List<Acquisition> writers = writers(acquisitions);
        for (Acquisition r : acquisitions) {
            if (writer(r)) {
                continue;
            }
            for (Acquisition w : writers) {
                if (!dataLoss && w.acquired() - r.requested() < 0 && w.fence() > r.fence()) {
                    violate("token order", "reader %s got token %d, below writer %s's %d granted before it asked",
                            r.op(), r.fence(), w.op(), w.fence());
                }
                if (w.requested() - r.acquired() > 0 && w.fence() < r.fence()) {
                    violate("token order", "reader %s got token %d, above writer %s's %d, which asked after it",
                            r.op(), r.fence(), w.op(), w.fence());
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
