package dev.warden.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LeadershipChecker} on written histories: each rule catches what it is for, and lets pass what it allows. */
class CheckerCatchesBrokenLeadershipHistoriesTest {
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    private LeadershipChecker check(List<Checker.Window> windows, String... lines) throws Exception {
        Path file = dir.resolve("w.history");
        Files.write(file, List.of(lines));
        LeadershipChecker checker = new LeadershipChecker(Duration.ofSeconds(1));
        checker.check(History.read(List.of(file)), true, windows, 0, 20_000 * MS);
        return checker;
    }

    @Test
    void overlappingBeliefsAreCaught() throws Exception {
        assertThat(check(List.of(),
                "ELECTED a 1 " + 100 * MS, "REVOKED a 1 LOST " + 1500 * MS + " " + 1499 * MS,
                "ELECTED b 2 " + 1000 * MS, "REVOKED b 2 LOST " + 2000 * MS + " " + 1999 * MS).violations())
                .anyMatch(v -> v.startsWith("leader exclusion"));
    }

    @Test
    void aBeliefEndsWhenIsLeaderWasSeenFalseHoweverLateTheRevokedCall() throws Exception {
        assertThat(check(List.of(),
                "ELECTED a 1 " + 100 * MS, "NOTLEADER a 1 " + 998 * MS + " " + 1000 * MS,
                "REVOKED a 1 LOST " + 1500 * MS + " -1",
                "ELECTED b 2 " + 1001 * MS, "REVOKED b 2 STEPPED_DOWN " + 2000 * MS + " " + 1999 * MS).violations())
                .isEmpty();
    }

    @Test
    void aStoppedLeaderEndsAtItsLastSampleButOneSeenLeadingAfterTheStallIsCaught() throws Exception {
        // Stopped from 500 to 2500 ms: its revoked call ran before its loop sampled again.
        assertThat(check(List.of(),
                "ELECTED a 1 " + 100 * MS, "REVOKED a 1 LOST " + 2501 * MS + " " + 499 * MS,
                "ELECTED b 2 " + 1600 * MS, "REVOKED b 2 CLOSED " + 3000 * MS + " " + 2999 * MS).violations())
                .isEmpty();
        assertThat(check(List.of(),
                "ELECTED a 1 " + 100 * MS, "REVOKED a 1 LOST " + 2600 * MS + " " + 2590 * MS,
                "ELECTED b 2 " + 1600 * MS, "REVOKED b 2 CLOSED " + 3000 * MS + " " + 2999 * MS).violations())
                .anyMatch(v -> v.startsWith("leader exclusion"));
    }

    @Test
    void onlyTermsElectedBeforeADataLossEndedAndBelievedAfterItBeganAreExcused() throws Exception {
        List<Checker.Window> loss = List.of(new Checker.Window(1000 * MS, 1200 * MS, List.of(), true));
        assertThat(check(loss,
                "ELECTED a 1 " + 100 * MS, "REVOKED a 1 LOST " + 1500 * MS + " " + 1499 * MS,
                "ELECTED b 2 " + 1300 * MS, "REVOKED b 2 CLOSED " + 2000 * MS + " " + 1999 * MS).violations())
                .isEmpty();
        assertThat(check(loss,
                "ELECTED a 1 " + 1300 * MS, "REVOKED a 1 LOST " + 1900 * MS + " " + 1899 * MS,
                "ELECTED b 2 " + 1800 * MS, "REVOKED b 2 CLOSED " + 2000 * MS + " " + 1999 * MS).violations())
                .anyMatch(v -> v.startsWith("leader exclusion"));
    }

    @Test
    void fallingEpochsAndUnreportedTermsAndALateLeaderAreCaught() throws Exception {
        assertThat(check(List.of(),
                "ELECTED a 5 " + 100 * MS, "REVOKED a 5 STEPPED_DOWN " + 500 * MS + " " + 499 * MS,
                "ELECTED b 4 " + 600 * MS, "REVOKED b 4 CLOSED " + 900 * MS + " " + 899 * MS).violations())
                .anyMatch(v -> v.startsWith("epochs"));
        assertThat(check(List.of(), "ELECTED a 1 " + 100 * MS).violations())
                .anyMatch(v -> v.startsWith("reporting"));
        assertThat(check(List.of(), "ELECTED a 1 " + 100 * MS, "STILL a 1 " + 19_000 * MS).violations()).isEmpty();
        assertThat(check(List.of(new Checker.Window(1000 * MS, 2000 * MS, List.of(), false)),
                "ELECTED a 1 " + 6000 * MS, "STILL a 1 " + 19_000 * MS).violations())
                .anyMatch(v -> v.startsWith("liveness"));
    }
}
