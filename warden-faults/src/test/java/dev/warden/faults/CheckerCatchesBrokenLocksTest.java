package dev.warden.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checker can fail: the workload that Warden passes catches deliberately broken locks. */
class CheckerCatchesBrokenLocksTest {
    /**
     * The workload's seconds ({@code -Dfaults.broken.seconds}): 4 by default. The broken locks break exclusion many
     * times a second: 22-26 (plain DEL) and 54-67 (GET then SET) violations of mutual exclusion in 4 s, 31 and 83 in
     * the 12 s they ran before (2026-11-28, a load average of about 3).
     */
    static final int SECONDS = Integer.getInteger("faults.broken.seconds", 4);

    @TempDir
    Path dir;

    @Test
    void releaseByPlainDelIsCaught() throws Exception {
        FaultRun.Report report = FaultSuiteIT.run(dir, "broken-del", List.of(), "naive-del",
                Duration.ofMillis(100), 250, "single", SECONDS);
        assertThat(report.violations()).as(report.summary())
                .anyMatch(v -> v.startsWith("mutual exclusion") || v.startsWith("loss reporting"));
    }

    @Test
    void renewalByGetThenSetIsCaught() throws Exception {
        FaultRun.Report report = FaultSuiteIT.run(dir, "broken-getset", List.of(), "naive-getset",
                Duration.ofMillis(150), 400, "single", SECONDS);
        assertThat(report.violations()).as(report.summary()).anyMatch(v -> v.startsWith("mutual exclusion"));
    }

    @Test
    void leaderThatKeepsLeadingOnALostLeaseIsCaught() throws Exception {
        // Terms of about 1.5 s on a lease of 0.5 s that is never renewed, and a leader that never hears of its loss.
        FaultRun.Report report = FaultSuiteIT.leadership(dir, "broken-leader", List.of(), "naive-leader",
                Duration.ofMillis(500), 8, "single");
        assertThat(report.violations()).as(report.leadership()).anyMatch(v -> v.startsWith("leader exclusion"));
    }
}
