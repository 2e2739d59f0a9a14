package dev.warden.faults;

import dev.warden.faults.History.Acquisition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Checks a run's history. Each violation is described in words; a correct lock produces none.
 *
 * <ol>
 *   <li>fencing: the store accepted tokens in non-decreasing order, every accepted write belongs to an
 *       acquisition with that token, and a write was rejected only if a later acquisition (higher token) had
 *       already been granted, never because tokens went backwards;</li>
 *   <li>mutual exclusion: no two holders' valid intervals overlap, leaving out, where the lock server lost its
 *       data, the holders that span the loss ({@link Window#spans});</li>
 *   <li>loss reporting: a release that returned false had its loss reported through onLost, and no release
 *       returned true after an acquisition with a higher token had already been granted;</li>
 *   <li>tokens: an acquisition granted before another was requested has a lower token;</li>
 *   <li>liveness: after every fault, some acquisition succeeds within the bound, and every worker the fault struck
 *       (cut off or slowed down) acquires again before the workload ends;</li>
 *   <li>data loss: a lease granted before the lock server lost its data is not released as held after it, and no
 *       surface says "held" again for it after it.</li>
 * </ol>
 *
 * <p>Surfaces that show no lease (views) enter the history as claims ({@link History.Claim}): each call that told
 * its caller "held", at an instant. A claim that falls wholly inside another holder's valid interval is a
 * mutual-exclusion violation. An administrator's forceRelease ends the valid interval of the holder it removed at
 * its start. A client closed mid-flight ({@link History.Closed}) leaves no lease valid and no view claiming after
 * the close, and its locks are taken by others within a lease. A multi-lock acquire that came back empty leaves no
 * part held by its thread. Async acquires complete within their bound.
 */
final class Checker {
    /**
     * When a fault lasted (System.nanoTime), and the workers it struck that must acquire again after it.
     *
     * @param victims  worker ids ("w0"), empty for a fault of the servers or one whose worker may stay idle
     * @param lostData whether the lock server lost its data in it (a single server restarted empty)
     * @param kind     the fault's name, for a violation's message
     */
    record Window(long from, long to, List<String> victims, boolean lostData, String kind) {
        Window(long from, long to, List<String> victims, boolean lostData) {
            this(from, to, victims, lostData, lostData ? "data loss" : "fault");
        }

        /**
         * Whether a holder may have been granted the lock by the server that lost it and still believed it held
         * after the loss began: asked before the fault ended, valid after it began. Such a holder may overlap
         * those granted after the loss, until it learns of the loss; no other may.
         */
        boolean spans(Acquisition a) {
            return lostData && a.requested() - to < 0 && a.validEnd() - from > 0;
        }
    }

    /** How far before a violation's first request its message lists faults ({@link #timeline}). */
    private static final long TIMELINE_LOOKBACK_NANOS = 3_000_000_000L;

    private final List<String> violations = new ArrayList<>();
    /** The run's faults, for the timelines of violations ({@link #timeline}). */
    private List<Window> windows = List.of();
    /** The lease of the run's locks, for the close rule (others take a closed client's locks within a lease). */
    private long leaseNanos = 1_000_000_000L;
    /** The run's clients closed mid-flight: their leases end with the close. */
    private List<History.Closed> closes = List.of();
    private final Map<String, Integer> counts = new HashMap<>();

    List<String> violations() {
        return violations;
    }

    Map<String, Integer> counts() {
        return counts;
    }

    Checker lease(java.time.Duration lease) {
        this.leaseNanos = lease.toNanos();
        return this;
    }

    /**
     * @param dataLoss whether the run may lose the lock server's data: then mutual exclusion and claims are checked
     *                 among the holders that span no loss ({@link Window#spans}), and every holder granted before
     *                 a loss is told of it ({@link #dataLoss})
     */
    void check(History history, Map<String, List<String>> storeLogs, boolean dataLoss, List<Window> faultWindows,
               long livenessBoundNanos, long workloadEnd) {
        closes = history.closes;
        windows = faultWindows;
        List<Acquisition> all = forced(history, (force, name) -> force.name().equals(name), false);
        // Without data loss, no window spans a holder: every holder is checked.
        List<Window> losses = faultWindows.stream().filter(w -> dataLoss && w.lostData()).toList();
        Map<String, List<History.Claim>> claimsByName = new HashMap<>();
        for (History.Claim c : history.claims) {
            claimsByName.computeIfAbsent(c.name(), n -> new ArrayList<>()).add(c);
        }
        Map<String, List<Acquisition>> byName = new HashMap<>();
        for (Acquisition a : all) {
            byName.computeIfAbsent(a.name(), n -> new ArrayList<>()).add(a);
        }
        for (Map.Entry<String, List<Acquisition>> entry : byName.entrySet()) {
            List<Acquisition> acquisitions = entry.getValue();
            fencing(entry.getKey(), acquisitions, storeLogs.getOrDefault(entry.getKey(), List.of()));
            mutualExclusion(unspanned(acquisitions, losses));
        }
        for (Map.Entry<String, List<History.Claim>> entry : claimsByName.entrySet()) {
            count("claims", entry.getValue().size());
            claims(entry.getValue(), unspanned(byName.getOrDefault(entry.getKey(), List.of()), losses));
        }
        for (Map.Entry<String, List<Acquisition>> entry : byName.entrySet()) {
            List<Acquisition> acquisitions = entry.getValue();
            lossReporting(acquisitions);
            tokenOrder(acquisitions);
        }
        liveness(history, faultWindows, livenessBoundNanos, workloadEnd);
        recovery(history, faultWindows, workloadEnd);
        views(history);
        closes(history, all, workloadEnd, (name, closed, by) -> takenByAnother(history, all, name, closed, by));
        dataLoss(history, all, losses);
    }

    /** The holders that span no loss of the lock server's data: those that mutual exclusion binds. */
    List<Acquisition> unspanned(List<Acquisition> acquisitions, List<Window> losses) {
        if (losses.isEmpty()) {
            return acquisitions;
        }
        List<Acquisition> bound = new ArrayList<>();
        for (Acquisition a : acquisitions) {
            if (losses.stream().anyMatch(w -> w.spans(a))) {
                count("holders spanning a loss of data");
            } else {
                bound.add(a);
            }
        }
        return bound;
    }

    /**
     * After the lock server lost its data, every holder granted before is told: its lease is gone. No release of
     * such a lease that began after the loss returned true, and no surface told its caller it held such a hold
     * again (a reentrant acquire, an extend, a nested call) after the loss.
     */
    void dataLoss(History history, List<Acquisition> all, List<Window> losses) {
        for (Window loss : losses) {
            count("losses of data");
            for (Acquisition a : all) {
                if (a.acquired() - loss.from() < 0 && a.releaseStart() - loss.to() > 0 && a.released().equals("true")) {
                    violate("data loss", "%s's release of '%s' returned true, but its lease was granted before the "
                            + "lock server lost its data", a.op(), a.name());
                }
            }
            claimedAgain(history, all, op -> true, loss.from(), loss.to(), "data loss",
                    "after the lock server lost its data");
        }
    }

    /**
     * A reentrant claim (a reentrant acquire, an extend, a nested call) of an op that {@code whose} selects, whose
     * outer hold began before {@code before} and which began after {@code after}: the surface told its caller it
     * held again a hold that had ended in between.
     */
    private void claimedAgain(History history, List<Acquisition> all, java.util.function.Predicate<String> whose,
                              long before, long after, String check, String what) {
        Map<String, Long> outer = new HashMap<>();
        for (Acquisition a : all) {
            outer.put(a.op(), a.acquired());
        }
        for (History.Claim c : history.claims) {
            if (c.kind().equals("outer")) {
                outer.put(c.op(), c.end());
            }
        }
        for (History.Claim c : history.claims) {
            Long first = outer.get(c.op());
            if (whose.test(c.op()) && !c.kind().equals("outer") && first != null && first - before < 0
                    && c.start() - after > 0) {
                violate(check, "%s was told it held '%s' again (%s) %s", c.op(), c.name(), c.kind(), what);
            }
        }
    }
    /**
     * The acquisitions, with the valid interval of each holder that an administrator's forceRelease removed ended
     * at the forceRelease's start: the holder is not told at once, but it no longer holds the lock. The holder is
     * the one with the token the forceRelease returned, or, where that token is no acquisition's (a holder that had
     * not asked for one gets it issued by the forceRelease itself), any whose interval spans the forceRelease.
     *
     * @param removes     whether a forceRelease may remove the holders of an acquisition's name (a family's: the
     *                    whole lock's, or one half's)
     * @param everyHolder whether a forceRelease removes every holder of the lock (a read-write lock's or a
     *                    semaphore's), not only the one with its token
     */
    List<Acquisition> forced(History history, java.util.function.BiPredicate<History.Force, String> removes,
                             boolean everyHolder) {
        closes = history.closes;
        List<Acquisition> all = new ArrayList<>(history.acquisitions.size());
        java.util.Set<Long> tokens = new java.util.HashSet<>();
        history.acquisitions.forEach(a -> tokens.add(a.fence()));
        for (Acquisition a : history.acquisitions) {
            long end = a.validEnd();
            for (History.Force f : history.forces) {
                if (removes.test(f, a.name()) && a.acquired() - f.end() < 0 && end - f.start() > 0
                        && (everyHolder || f.token() == a.fence() || !tokens.contains(f.token()))) {
                    count("holders removed by forceRelease");
                    end = f.start();
                }
            }
            for (History.Closed c : history.closes) {
                // Closing a client releases its leases: a holder's entitlement ends when the close begins.
                if (a.op().startsWith(c.worker() + ".") && a.acquired() - c.end() < 0 && end - c.start() > 0) {
                    count("leases ended by their client's close");
                    end = c.start();
                }
            }
            if (end != a.validEnd()) {
                a = new Acquisition(a.op(), a.name(), a.fence(), a.requested(), a.acquired(), a.write1Start(),
                        a.write1End(), a.write1Accepted(), a.write2Start(), a.write2End(), a.write2Accepted(),
                        end, a.releaseStart(), a.releaseEnd(), a.released(), a.lostAt(), a.validAtAcquire());
            }
            all.add(a);
        }
        return all;
    }

    /**
     * A claim that lies wholly inside the valid interval of another holder (another operation) was a call that told
     * its caller "held" while someone else held the lock: a correct surface checks with Redis at some moment of the
     * call, and would have found the other holder.
     */
    void claims(List<History.Claim> claims, List<Acquisition> acquisitions) {
        List<Acquisition> byGrant = new ArrayList<>(acquisitions);
        byGrant.sort(Comparator.comparingLong(Acquisition::acquired));
        for (History.Claim c : claims) {
            for (Acquisition a : byGrant) {
                if (a.acquired() - c.start() > 0) {
                    break;
                }
                if (!a.op().equals(c.op()) && a.validEnd() - c.end() >= 0) {
                    violate("mutual exclusion", "%s was told it held '%s' (%s acquire) while %s (token %d) validly "
                            + "held it", c.op(), c.name(), c.kind(), a.op(), a.fence());
                    break;
                }
            }
        }
    }

    /** Reentrant acquires told lost, multi-lock misses that left a part held, async acquires that hung. */
    private void views(History history) {
        count("reentrant acquires told lost", history.told.size());
        for (History.Miss m : history.misses) {
            count("multi-lock acquires not acquired");
            if (!m.heldAfter().equals("-")) {
                violate("multi-lock", "%s's acquire of %s came back empty, but its thread still held %s after it",
                        m.op(), m.names(), m.heldAfter());
            }
        }
        for (History.Hung h : history.hung) {
            violate("liveness", "%s's %s of '%s' never completed", h.op(), h.what(), h.name());
        }
    }

    /** Whether others than a closed client took a lock it held, between its close and a bound. */
    interface Taken {
        /**
         * @param name   the name the closed client held
         * @param closed the close
         * @param by     the bound (System.nanoTime)
         */
        boolean taken(String name, History.Closed closed, long by);
    }

    /** A lock's rule: another worker acquired the name, or claimed it with an outer hold, after the close began. */
    private static boolean takenByAnother(History history, List<Acquisition> all, String name,
                                          History.Closed closed, long by) {
        String prefix = closed.worker() + ".";
        return all.stream().anyMatch(a -> a.name().equals(name) && !a.op().startsWith(prefix)
                && a.acquired() - closed.start() > 0 && a.acquired() - by <= 0)
                || history.claims.stream().anyMatch(c -> c.name().equals(name) && !c.op().startsWith(prefix)
                && c.kind().equals("outer") && c.end() - closed.start() > 0 && c.end() - by <= 0);
    }

    /**
     * After a client is closed mid-flight: no lease of it is still valid (its holders sampled their validity after
     * the close), no view of it claims a hold taken before the close, and others take the locks it held within a
     * lease (plus a second of slack), as {@code taken} judges.
     */
    void closes(History history, List<Acquisition> all, long workloadEnd, Taken taken) {
        for (History.Closed closed : history.closes) {
            count("clients closed mid-flight");
            String prefix = closed.worker() + ".";
            List<String> held = new ArrayList<>();
            // As the holders saw their leases: the intervals of all end at the close, which is what is checked.
            for (Acquisition a : history.acquisitions) {
                if (!a.op().startsWith(prefix) || a.acquired() - closed.start() >= 0) {
                    continue;
                }
                if (a.releaseStart() - closed.end() > 0 && a.validBeforeRelease() - closed.end() > 0) {
                    violate("close", "%s's lease of '%s' was still valid %d ms after its client was closed", a.op(),
                            a.name(), (a.validBeforeRelease() - closed.end()) / 1_000_000);
                }
                if (a.releaseStart() - closed.start() > 0 && !held.contains(a.name())) {
                    held.add(a.name());
                }
            }
            claimedAgain(history, all, op -> op.startsWith(prefix), closed.start(), closed.end(), "close",
                    "after its client was closed");
            long by = closed.end() + leaseNanos + 1_000_000_000L;
            if (workloadEnd - by < 0) {
                continue;
            }
            for (String name : held) {
                if (!taken.taken(name, closed, by)) {
                    violate("close", "nobody else took '%s' within a lease after %s's client was closed holding it",
                            name, closed.worker());
                }
            }
        }
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
                violate("mutual exclusion", "%s (token %d) was granted '%s' while %s (token %d) still validly held it"
                        + "; %s", a.op(), a.fence(), a.name(), latest.op(), latest.fence(), timeline(latest, a));
            }
            if (latest == null || a.validEnd() - latest.validEnd() > 0) {
                latest = a;
            }
        }
    }

    /**
     * Two holders' times, in ms from the first one's request, and the faults from 3 s before it to the second one's
     * release: what a violation's message needs to be understood without the run's files.
     */
    String timeline(Acquisition first, Acquisition second) {
        long origin = first.requested();
        long to = Math.max(first.releaseEnd(), second.releaseEnd());
        StringBuilder text = new StringBuilder(times(first, origin)).append("; ").append(times(second, origin));
        for (Window w : windows) {
            if (w.to() - (origin - TIMELINE_LOOKBACK_NANOS) > 0 && w.from() - to < 0) {
                text.append("; ").append(w.kind()).append(' ').append(ms(w.from(), origin)).append(" to ")
                        .append(ms(w.to(), origin));
            }
        }
        return text.toString();
    }

    private static String times(Acquisition a, long origin) {
        return String.format("%s requested %s, acquired %s valid to %s, writes %s-%s %s and %s-%s %s, valid before "
                        + "release to %s, release %s-%s returned %s, lost %s", a.op(), ms(a.requested(), origin),
                ms(a.acquired(), origin), ms(a.validAtAcquire(), origin), ms(a.write1Start(), origin),
                ms(a.write1End(), origin), a.write1Accepted() ? "accepted" : "rejected", ms(a.write2Start(), origin),
                ms(a.write2End(), origin), a.write2Accepted() ? "accepted" : "rejected",
                ms(a.validBeforeRelease(), origin), ms(a.releaseStart(), origin), ms(a.releaseEnd(), origin),
                a.released(), ms(a.lostAt(), origin));
    }

    /** A System.nanoTime instant in ms from {@code origin}; "-" for none (recorded as -1 or 0). */
    private static String ms(long at, long origin) {
        return at <= 0 ? "-" : String.format(Locale.ROOT, "%+.1f ms", (at - origin) / 1e6);
    }

    private void lossReporting(List<Acquisition> acquisitions) {
        List<Acquisition> sorted = new ArrayList<>(acquisitions);
        sorted.sort(Comparator.comparingLong(Acquisition::acquired));
        for (Acquisition a : acquisitions) {
            if (a.released().equals("false")) {
                count("lost leases");
                if (a.lostAt() < 0 && !closedUnder(a)) {
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

    /** Whether the holder's client was closed while it held: the close released the lease, not a loss. */
    /** Whether a client close (of the history last checked or {@link #forced}) fell within the hold. */
    boolean closedUnder(Acquisition a) {
        return closes.stream().anyMatch(c -> a.op().startsWith(c.worker() + ".") && c.start() - a.releaseStart() < 0
                && c.end() - a.requested() > 0);
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
                    .anyMatch(a -> a.acquired() - end >= 0 && a.acquired() - (end + bound) <= 0)
                    || history.claims.stream().anyMatch(c -> c.kind().equals("outer") && c.end() - end >= 0
                    && c.end() - (end + bound) <= 0);
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
                        && a.acquired() - window.to() >= 0 && a.acquired() - workloadEnd <= 0)
                        || history.claims.stream().anyMatch(c -> c.op().startsWith(victim + ".")
                        && c.kind().equals("outer") && c.end() - window.to() >= 0 && c.end() - workloadEnd <= 0);
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
        count(what, 1);
    }

    private void count(String what, int n) {
        counts.merge(what, n, Integer::sum);
    }
}
