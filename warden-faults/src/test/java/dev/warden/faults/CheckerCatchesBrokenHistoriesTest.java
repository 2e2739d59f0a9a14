package dev.warden.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.faults.History.Acquisition;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The checker's rules of data loss, of a family's close and of a half forced alone, each on a small history that
 * breaks it (what a broken lock would leave) and on the same history mended: the rule fires on the one alone. Times
 * are in milliseconds from 0; the workload ends at 10 s; the lease is the suite's, 1 s.
 */
class CheckerCatchesBrokenHistoriesTest {
    private static final long MS = 1_000_000L;
    private static final long END = 10_000 * MS;
    /** The lock server lost its data between 1.0 and 1.1 s. */
    private static final Checker.Window LOSS = new Checker.Window(1000 * MS, 1100 * MS, List.of(), true);

    /**
     * A hold: granted at {@code acquired} (asked 10 ms before), valid by its lease until {@code valid}, released at
     * {@code release} with {@code released}; its loss reported at {@code lost} (-1: never).
     */
    private static Acquisition hold(String op, String name, long fence, long acquired, long valid, long release,
                                    String released, long lost) {
        return new Acquisition(op, name, fence, (acquired - 10) * MS, acquired * MS, acquired * MS, acquired * MS,
                true, release * MS, release * MS, true, valid * MS, release * MS, (release + 1) * MS, released,
                lost < 0 ? -1 : lost * MS, valid * MS);
    }

    private static History holds(Acquisition... holds) {
        History history = new History();
        history.acquisitions.addAll(List.of(holds));
        return history;
    }

    private static List<String> lock(History history, boolean dataLoss, List<Checker.Window> windows) {
        Checker checker = new Checker().lease(FaultSuiteIT.LEASE);
        checker.check(history, Map.of(), dataLoss, windows, 8_000 * MS, END);
        return checker.violations();
    }

    private static List<String> family(History history) {
        FamilyChecker checker = new FamilyChecker().lease(FaultSuiteIT.LEASE);
        checker.check(history, Map.of(), false, List.of(), 8_000 * MS, END);
        return checker.violations();
    }

    @Test
    void aLeaseReleasedAsHeldAfterTheServerLostItsDataIsCaught() {
        History broken = holds(hold("w1.0:0", "alpha", 1, 500, 2000, 1500, "true", -1),
                hold("w2.0:0", "alpha", 2, 1200, 2200, 1300, "true", -1));
        assertThat(lock(broken, true, List.of(LOSS))).anyMatch(v -> v.startsWith("data loss")
                && v.contains("w1.0:0's release of 'alpha' returned true"));

        History told = holds(hold("w1.0:0", "alpha", 1, 500, 1150, 1500, "false", 1150),
                hold("w2.0:0", "alpha", 2, 1200, 2200, 1300, "true", -1));
        assertThat(lock(told, true, List.of(LOSS))).isEmpty();
    }

    @Test
    void aViewThatClaimsAgainAfterTheServerLostItsDataIsCaught() {
        History broken = new History();
        broken.claims.add(new History.Claim("w1.0:0", "alpha", 400 * MS, 500 * MS, "outer"));
        broken.claims.add(new History.Claim("w1.0:0", "alpha", 1200 * MS, 1210 * MS, "reentrant"));
        broken.acquisitions.add(hold("w0.0:0", "alpha", 2, 1300, 2300, 1400, "true", -1));
        assertThat(lock(broken, true, List.of(LOSS))).anyMatch(v -> v.startsWith("data loss")
                && v.contains("w1.0:0 was told it held 'alpha' again (reentrant)"));

        History told = new History();
        told.claims.add(new History.Claim("w1.0:0", "alpha", 400 * MS, 500 * MS, "outer"));
        told.claims.add(new History.Claim("w1.0:0", "alpha", 600 * MS, 610 * MS, "reentrant"));
        told.acquisitions.add(hold("w0.0:0", "alpha", 2, 1300, 2300, 1400, "true", -1));
        assertThat(lock(told, true, List.of(LOSS))).isEmpty();
    }

    /** Data loss excuses only the holders it spans: two granted after it still exclude each other. */
    @Test
    void exclusionIsCheckedAmongHoldersThatSpanNoLossOfData() {
        History after = holds(hold("w1.0:0", "alpha", 5, 1200, 2200, 1800, "true", -1),
                hold("w2.0:0", "alpha", 6, 1500, 2500, 1900, "true", -1));
        assertThat(lock(after, true, List.of(LOSS))).anyMatch(v -> v.startsWith("mutual exclusion")
                && v.contains("w2.0:0 (token 6) was granted 'alpha' while w1.0:0"));
        // The message tells both holders' times from the first one's request, and the faults around them.
        assertThat(lock(after, true, List.of(LOSS))).anyMatch(v -> v.contains("w1.0:0 requested +0.0 ms")
                && v.contains("w2.0:0 requested +300.0 ms") && v.contains("data loss -190.0 ms to -90.0 ms"));

        History spanning = holds(hold("w1.0:0", "alpha", 5, 500, 1600, 1700, "false", 1600),
                hold("w2.0:0", "alpha", 6, 1200, 2200, 1800, "true", -1));
        assertThat(lock(spanning, true, List.of(LOSS))).isEmpty();
        // The same overlap where no data was lost is a violation.
        assertThat(lock(spanning, false, List.of())).anyMatch(v -> v.startsWith("mutual exclusion"));
    }

    /**
     * A closed client's lease still valid after the close, as its holder saw it (its client went on renewing it).
     * The checker ends every interval of a closed client at the close, so this is judged on what the holder saw.
     */
    @Test
    void aLeaseStillValidAfterItsClientClosedIsCaught() {
        History broken = new History();
        broken.closes.add(new History.Closed("w1", 1000 * MS, 1010 * MS));
        broken.acquisitions.add(hold("w1.0:0", "alpha", 3, 900, 3000, 2500, "true", -1));
        broken.acquisitions.add(hold("w2.0:0", "alpha", 4, 2600, 3600, 2700, "true", -1));
        assertThat(lock(broken, false, List.of())).anyMatch(v -> v.startsWith("close")
                && v.contains("w1.0:0's lease of 'alpha' was still valid"));
    }

    /** A closed client's read lease still valid after the close (its client went on renewing it). */
    @Test
    void aFamilyLeaseStillValidAfterItsClientClosedIsCaught() {
        History broken = closedReader(3000, 2500);
        assertThat(family(broken)).anyMatch(v -> v.startsWith("close") && v.contains("w1.0:0's lease of "
                + "'prices#r' was still valid"));
        assertThat(family(closedReader(1005, 2500))).isEmpty();
    }

    /** A reader closed at 1 s, valid until {@code valid}, released at {@code release}; a writer takes the lock later. */
    private static History closedReader(long valid, long release) {
        History history = closedHolding("prices#r", valid, release);
        history.acquisitions.add(hold("w2.0:0", "prices#w", 7, 1500, 2500, 1600, "true", -1));
        return history;
    }

    /** Worker w1's client closed at 1 s, w1.0:0 holding {@code name} from 0.9 s, valid until {@code valid}. */
    private static History closedHolding(String name, long valid, long release) {
        History history = new History();
        history.closes.add(new History.Closed("w1", 1000 * MS, 1010 * MS));
        history.acquisitions.add(hold("w1.0:0", name, 3, 900, valid, release, "error", -1));
        return history;
    }

    /** Readers share the lock: only a writer shows that a closed client's read lease was let go. */
    @Test
    void aFamilyReadLockThatNoWriterTookAfterItsClientClosedIsCaught() {
        notTakenUntil(hold("w2.1:0", "prices#w", 7, 1500, 2500, 1600, "true", -1), "prices#r",
                hold("w2.0:0", "prices#r", 3, 1200, 2200, 1300, "true", -1));
    }

    /**
     * w1's client closed holding {@code name}, others holding {@code others} after: the close rule finds nobody took
     * it, until {@code mend} is added.
     */
    private static void notTakenUntil(Acquisition mend, String name, Acquisition... others) {
        History broken = closedHolding(name, 1005, 1500);
        broken.acquisitions.addAll(List.of(others));
        assertThat(family(broken)).anyMatch(v -> v.startsWith("close")
                && v.contains("nobody else took '" + name + "' within a lease after w1's client was closed"));
        broken.acquisitions.add(mend);
        assertThat(family(broken)).isEmpty();
    }

    /** A semaphore of 3 permits that others never hold to its capacity after a client holding one closed. */
    @Test
    void aFamilyPermitNotFreedByItsClientsCloseIsCaught() {
        // Mended by a third permit at once, by the closed worker's new client: the closed client's was let go.
        notTakenUntil(hold("w1.2:0", "slots#p3", 6, 1300, 2300, 1350, "true", -1), "slots#p3",
                hold("w2.0:0", "slots#p3", 4, 1100, 2100, 1400, "true", -1),
                hold("w2.1:0", "slots#p3", 5, 1200, 2200, 1400, "true", -1));
    }

    /**
     * A write half forced alone ({@code FORCE prices#w}) removes no reader: a reader through it overlaps the
     * administrator's write lock. The read half forced ({@code FORCE prices#r}) ends the reader's interval.
     */
    @Test
    void aHalfForcedAloneEndsOnlyItsOwnHolders() {
        assertThat(family(forced("prices#w"))).anyMatch(v -> v.startsWith("exclusion")
                && v.contains("writer admin.0:0 (token 9) of 'prices' overlapped reader w1.0:0"));
        assertThat(family(forced("prices#r"))).isEmpty();
        assertThat(family(forced("prices"))).isEmpty();
    }

    /**
     * Data loss excuses only the family holders it spans: two writers granted after it still exclude each other, and
     * a semaphore's permits granted after it still keep to its number; holders that span the loss are left out.
     */
    @Test
    void aFamilyIsBoundByExclusionAndItsPermitsAmongHoldersThatSpanNoLossOfData() {
        History writers = holds(hold("w1.0:0", "prices#w", 5, 1200, 2200, 1800, "true", -1),
                hold("w2.0:0", "prices#w", 6, 1500, 2500, 1900, "true", -1));
        assertThat(familyWithLoss(writers)).anyMatch(v -> v.startsWith("exclusion"));
        History permits = holds(hold("w1.0:0", "slots#p1", 5, 1200, 2200, 1800, "true", -1),
                hold("w2.0:0", "slots#p1", 6, 1500, 2500, 1900, "true", -1));
        assertThat(familyWithLoss(permits)).anyMatch(v -> v.startsWith("permit limit"));

        History spanning = holds(hold("w1.0:0", "prices#w", 5, 500, 1600, 1700, "false", 1600),
                hold("w2.0:0", "prices#w", 6, 1200, 2200, 1800, "true", -1));
        assertThat(familyWithLoss(spanning)).isEmpty();
        // A reader granted before the loss that releases after it as held: its lease was gone with the data.
        History told = holds(hold("w1.0:0", "prices#r", 4, 500, 2000, 1500, "true", -1));
        assertThat(familyWithLoss(told)).anyMatch(v -> v.startsWith("data loss"));
    }

    private static List<String> familyWithLoss(History history) {
        FamilyChecker checker = new FamilyChecker().lease(FaultSuiteIT.LEASE);
        checker.check(history, Map.of(), true, List.of(LOSS), 8_000 * MS, END);
        return checker.violations();
    }

    private static History forced(String what) {
        History history = new History();
        history.forces.add(new History.Force(what, 1000 * MS, 1010 * MS, 3));
        history.acquisitions.add(hold("w1.0:0", "prices#r", 3, 900, 1900, 1500, "false", 1450));
        history.acquisitions.add(hold("admin.0:0", "prices#w", 9, 1100, 2100, 1400, "true", -1));
        return history;
    }
}
