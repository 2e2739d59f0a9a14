package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/**
 * The many-clients scenario (S9): a short run of Warden and Redisson with a client per thread on several names; and
 * its per-name checks, shown to pass a correct lock and to catch one that locks nothing. Figures are not judged.
 */
class ManyClientsSmokeTest {
    private static final List<String> CONTENDERS = List.of("warden", "redisson");

    @Test
    void wardenAndRedissonRunSixtyFourClientsOnEightNamesWithoutOverlap() throws Exception {
        try (Backends backends = Backends.start(null, CONTENDERS)) {
            Bench.Results results = Bench.run(backends.servers(), List.of(Scenario.S9), CONTENDERS,
                    Duration.ofMillis(1_000), 1, Duration.ZERO);
            for (String contender : CONTENDERS) {
                assertThat(results.median(Scenario.S9, contender, "ops/s")).as(contender).isPositive();
                assertThat(results.median(Scenario.S9, contender, "overlaps")).as(contender).isZero();
                assertThat(results.median(Scenario.S9, contender, "lost updates")).as(contender).isZero();
                assertThat(results.median(Scenario.S9, contender, "jain")).as(contender).isBetween(0.0, 1.0);
            }
            assertThat(results.table()).contains("S9: 64 clients, 8 names").contains("warden / redisson");
        }
    }

    @Test
    void eachNameIsCheckedOnItsOwn() throws Exception {
        Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();
        Map<String, Double> correct = Scenario.S9.run(new InProcess(key -> {
            ReentrantLock lock = locks.computeIfAbsent(key, k -> new ReentrantLock());
            lock.lock();
            return lock::unlock;
        }), Duration.ofMillis(300), "t:");
        assertThat(locks).hasSize(Scenario.S9_NAMES);
        assertThat(correct.get("overlaps")).isZero();
        assertThat(correct.get("lost updates")).isZero();
        assertThat(correct).doesNotContainKey("longest streak");
        // One lock for all eight names would be correct too; none at all is caught.
        Map<String, Double> broken = Scenario.S9.run(new InProcess(key -> () -> { }), Duration.ofMillis(300), "t:");
        assertThat(broken.get("overlaps")).isPositive();
    }

    /** A contender in this JVM: {@code acquire} takes the given lock of the key. */
    private record InProcess(Acquire acquire) implements Contender {
        interface Acquire {
            Release of(String key);
        }

        @Override
        public String name() {
            return "in-process";
        }

        @Override
        public Release acquire(String key) {
            return acquire.of(key);
        }

        @Override
        public void close() {
        }
    }
}
