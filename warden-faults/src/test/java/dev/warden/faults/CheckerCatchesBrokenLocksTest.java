package dev.warden.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checker can fail: the workload that Warden passes catches deliberately broken locks. */
class CheckerCatchesBrokenLocksTest {
    @TempDir
    Path dir;

    @Test
    void releaseByPlainDelIsCaught() throws Exception {
        FaultRun.Report report = FaultSuiteIT.run(dir, "broken-del", List.of(), "naive-del",
                Duration.ofMillis(100), 250);
        assertThat(report.violations()).as(report.summary())
                .anyMatch(v -> v.startsWith("mutual exclusion") || v.startsWith("loss reporting"));
    }

    @Test
    void renewalByGetThenSetIsCaught() throws Exception {
        FaultRun.Report report = FaultSuiteIT.run(dir, "broken-getset", List.of(), "naive-getset",
                Duration.ofMillis(150), 400);
        assertThat(report.violations()).as(report.summary()).anyMatch(v -> v.startsWith("mutual exclusion"));
    }

    @Test
    void leaderThatKeepsLeadingOnALostLeaseIsCaught() throws Exception {
        // Terms of about 1.5 s on a lease of 0.5 s that is never renewed, and a leader that never hears of its loss.
        FaultRun.Report report = FaultSuiteIT.leadership(dir, "broken-leader", List.of(), "naive-leader",
                Duration.ofMillis(500), 8);
        assertThat(report.violations()).as(report.leadership()).anyMatch(v -> v.startsWith("leader exclusion"));
    }
}
