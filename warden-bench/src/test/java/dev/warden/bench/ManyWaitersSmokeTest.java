package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The many-waiters scenario (S7), small: 1,000 waiters on 10 locks held 2 s, for Warden and Redisson. Every waiter
 * gets the lock, never two at once; Warden's waiters send nothing while the lock is held; and on a JVM with virtual
 * threads (CI runs this on 25), the waiters are virtual threads, start no platform thread each and pin no carrier.
 * Handoff figures are not judged.
 */
// Tagged "full": a scale smoke test of the bench (about a minute or more); in `mvn -B verify -Pfull` and CI.
@Tag("full")
class ManyWaitersSmokeTest {
    private static final int WAITERS = 1_000;
    private static final int LOCKS = 10;

    @Test
    void aThousandWaitersOnTenLocksAllGetThemOneAtATime() throws Exception {
        boolean virtual = Runtime.version().feature() >= 21;
        try (Backends backends = Backends.start(null, List.of("warden", "redisson"))) {
            String uri = backends.servers().redis();
            for (String contender : List.of("warden", "redisson")) {
                Map<String, Double> figures = ManyWaiters.run(contender, uri, WAITERS, LOCKS, Duration.ofSeconds(2));
                assertThat(figures.get("acquired")).as(contender).isEqualTo(WAITERS);
                assertThat(figures.get("overlaps")).as(contender).isZero();
                assertThat(figures.get("lost")).as(contender).isZero();
                assertThat(figures.get("handoff p99 ms")).as(contender).isPositive();
                assertThat(figures.get("single-waiter handoff p99 ms")).as(contender).isPositive();
                assertThat(figures.get("virtual threads")).as(contender).isEqualTo(virtual ? 1.0 : 0.0);
                if (virtual) {
                    // Each client's own threads only: none per waiter.
                    assertThat(figures.get("client threads added")).as(contender).isLessThan(WAITERS / 4.0);
                }
                if (contender.equals("warden")) {
                    // Renewing once a second would be a script (about ten commands) per waiter per second; the
                    // INFO calls alone are 0.002 commands.
                    assertThat(figures.get("scripts per waiter per s (held)")).isLessThan(0.01);
                    assertThat(figures.get("commands per waiter per s (held)")).isLessThan(0.05);
                    if (virtual) {
                        assertThat(figures.get("pinned")).isZero();
                    }
                }
            }
        }
    }

    @Test
    void onlyWardenAndRedissonTakePart() {
        assertThatThrownBy(() -> ManyWaiters.run("floor", "redis://localhost:1", 10, 1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
