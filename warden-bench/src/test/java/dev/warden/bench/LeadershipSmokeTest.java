package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A tiny L1 ({@link Handover}) for Warden, Spring Integration's leader initiator and Curator's leader latch, through
 * the bench's own entry ({@link Bench#leadership}): every handover completes, Warden's step-down is quick, a killed
 * leader's follower is elected once the lease (expiry, session) runs out and not long after, and a waiting Warden
 * follower costs Redis less than Spring's polling one.
 */
// Tagged "full": a scale smoke test of the bench (about a minute); in `mvn -B verify -Pfull` and CI.
@Tag("full")
class LeadershipSmokeTest {
    private static final List<String> CONTENDERS = List.of("warden", "spring", "curator");
    /** Beyond the lease: Spring's 100 ms spin and 50 ms busy wait, ZooKeeper's tick, a loaded machine. */
    private static final double MARGIN_MS = 4000;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void everyLibraryHandsOverOnStepDownAndOnDeath() throws Exception {
        Handover.Settings settings = new Handover.Settings(2, 1, Duration.ofSeconds(3), Duration.ofSeconds(2),
                Duration.ofMillis(300));
        try (Backends backends = Backends.start(null, CONTENDERS)) {
            Bench.Results results = new Bench.Results(List.of(), CONTENDERS);
            Bench.leadership(backends.servers(), CONTENDERS, settings, results, System.nanoTime());
            Map<String, Map<String, Double>> byContender = results.resources().get(Bench.LEADERSHIP);
            assertThat(byContender).as("a contender's L1 failed: see stderr").containsOnlyKeys(CONTENDERS);
            for (String contender : CONTENDERS) {
                Map<String, Double> figures = byContender.get(contender);
                assertThat(figures.get("step-downs")).as(contender).isEqualTo(2.0);
                assertThat(figures.get("kills")).as(contender).isEqualTo(1.0);
                assertThat(figures.get("step-down max ms")).as(contender).isPositive();
                double lease = figures.get("lease/TTL/session s") * 1000;
                // Elected only after the dead leader's lease ran out, but not much later.
                assertThat(figures.get("kill max ms")).as(contender).isPositive()
                        .isLessThanOrEqualTo(lease + MARGIN_MS);
            }
            // Stopped or closed, Spring's and Curator's yielders do not join again before the other is elected.
            assertThat(byContender.get("spring").get("step-downs won again")).isZero();
            assertThat(byContender.get("curator").get("step-downs won again")).isZero();
            Map<String, Double> warden = byContender.get("warden");
            assertThat(warden.get("lease/TTL/session s")).isEqualTo(3.0);
            assertThat(warden.get("step-down max ms")).isLessThan(1000);
            // Renewed every third of the lease, the dead leader's lease had at least a third of it left.
            assertThat(warden.get("kill max ms")).isGreaterThan(1000);
            // Renewals every second, and no polling: far fewer requests than Spring's follower polling 10 times a s.
            assertThat(warden.get("idle requests/s")).isPositive()
                    .isLessThan(byContender.get("spring").get("idle requests/s") / 2);
            assertThat(byContender.get("curator").get("idle requests/s")).isNaN();
            assertThat(results.table()).contains("L1: leadership handover").contains("kill median ms");
        }
    }
}
