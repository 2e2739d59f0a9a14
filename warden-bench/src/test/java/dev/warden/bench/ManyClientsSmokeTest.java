package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The many-clients scenario (S9) and its smaller sizes (S9_8, S9_24): a short run of Warden and Redisson with a
 * client per thread on one or several names; and the per-name checks, shown to pass a correct lock and to catch one
 * that locks nothing. Figures are not judged.
 */
// Tagged "full": a scale smoke test of the bench (about a minute or more); in `mvn -B verify -Pfull` and CI.
@Tag("full")
class ManyClientsSmokeTest {
    private static final List<String> CONTENDERS = List.of("warden", "redisson");

    @Test
    void wardenAndRedissonRunEightToSixtyFourClientsWithoutOverlap() throws Exception {
        try (Backends backends = Backends.start(null, CONTENDERS)) {
            Bench.Results results = Bench.run(backends.servers(), Scenario.s9Sizes(), CONTENDERS,
                    Duration.ofMillis(1_000), 1, Duration.ZERO);
            for (Scenario size : Scenario.s9Sizes()) {
                for (String contender : CONTENDERS) {
                    String as = size + " " + contender;
                    assertThat(results.median(size, contender, "ops/s")).as(as).isPositive();
                    assertThat(results.median(size, contender, "overlaps")).as(as).isZero();
                    assertThat(results.median(size, contender, "lost updates")).as(as).isZero();
                    assertThat(results.median(size, contender, "jain")).as(as).isBetween(0.0, 1.0);
                }
            }
            assertThat(results.table()).contains("S9: 64 clients, 8 names").contains("S9_8: 8 clients, 1 name")
                    .contains("S9_24: 24 clients, 3 names").contains("warden / redisson");
        }
    }

    @Test
    void theSmallerSizesKeepEightClientsPerName() {
        for (Scenario size : Scenario.s9Sizes()) {
            assertThat(size.threads).as(size.toString()).isEqualTo(Scenario.S9_PER_NAME * size.names);
            assertThat(size.clientPerThread).as(size.toString()).isTrue();
        }
        assertThat(Scenario.s9Sizes()).extracting(size -> size.threads).containsExactly(8, 24, 64);
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
        // S9_24's three names, too.
        locks.clear();
        Map<String, Double> smaller = Scenario.S9_24.run(new InProcess(key -> {
            ReentrantLock lock = locks.computeIfAbsent(key, k -> new ReentrantLock());
            lock.lock();
            return lock::unlock;
        }), Duration.ofMillis(300), "t:");
        assertThat(locks).hasSize(3);
        assertThat(smaller.get("overlaps")).isZero();
        assertThat(smaller.get("lost updates")).isZero();
        assertThat(Scenario.S9_24.run(new InProcess(key -> () -> { }), Duration.ofMillis(300), "t:").get("overlaps"))
                .isPositive();
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
