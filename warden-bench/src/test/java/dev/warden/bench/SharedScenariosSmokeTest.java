package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The read-write lock (S10, and S10m over four clients) and semaphore (S11) scenarios: a short run against Redisson
 * on one server and the JDK's locks in one JVM (the ceiling), the floor skipped as n/a; and their safety checks,
 * shown to pass a correct lock and to fail the run for a broken one. Figures are not judged, but for what each
 * acquisition cost Redis, which must be there and make sense.
 */
// Tagged "full": a scale smoke test of the bench (about a minute or more); in `mvn -B verify -Pfull` and CI.
@Tag("full")
class SharedScenariosSmokeTest {
    private static final List<String> CONTENDERS = List.of("warden", "floor", "redisson", "redisson-expirable",
            "in-process");
    private static final List<Scenario> SCENARIOS = List.of(Scenario.S10, Scenario.S10m, Scenario.S11);

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void wardenRedissonAndTheCeilingRunBothAndTheFloorIsNotApplicable() throws Exception {
        try (Backends backends = Backends.start(null, CONTENDERS)) {
            Bench.Results results = Bench.run(backends.servers(), SCENARIOS, CONTENDERS, Duration.ofMillis(300), 1,
                    Duration.ZERO);
            for (Scenario scenario : SCENARIOS) {
                for (String contender : CONTENDERS) {
                    // The ceiling is one JVM's lock: it has no meaning across S10m's clients.
                    boolean takesPart = contender.equals("warden") || contender.equals("redisson")
                            || (contender.equals("in-process") && scenario != Scenario.S10m)
                            || (contender.equals("redisson-expirable") && scenario == Scenario.S11);
                    double rate = results.median(scenario, contender, "ops/s");
                    if (!takesPart) {
                        assertThat(rate).as("%s %s", scenario, contender).isNaN();
                        continue;
                    }
                    assertThat(rate).as("%s %s", scenario, contender).isPositive();
                    // An acquisition is at least a request to take and one to give back; none in one JVM.
                    if (contender.equals("in-process")) {
                        assertThat(results.requestsPerOp(scenario, contender)).isNaN();
                    } else {
                        assertThat(results.requestsPerOp(scenario, contender)).as("%s %s", scenario, contender)
                                .isGreaterThanOrEqualTo(1.9);
                    }
                    assertThat(results.median(scenario, contender, scenario.latencyFigure()))
                            .as("%s %s", scenario, contender).isPositive();
                    BenchSmokeTest.assertServerCost(results, scenario, contender);
                }
            }
            // Readers share: two or more hold the lock at once, and no more holders than permits.
            assertThat(results.median(Scenario.S10, "warden", "max readers")).isGreaterThanOrEqualTo(2);
            assertThat(results.median(Scenario.S10, "warden", "writes/s")).isPositive();
            assertThat(results.median(Scenario.S11, "warden", "max holders")).isBetween(1.0, 4.0);
            assertThat(results.median(Scenario.S10m, "warden", "reads/s")).isPositive();
            String table = results.table();
            assertThat(table).contains("S10: 8 readers and 2 writers").contains("S11: 16 threads, a semaphore")
                    .contains("S10m: 8 readers and 2 writers over 4 clients")
                    .contains("warden / redisson      redis cpu us/op ratio")
                    .contains("warden / redisson      write wait p99 us ratio")
                    .contains("warden / floor         ops/s ratio n/a")
                    .contains("warden / redisson-expirable requests/op ratio")
                    .contains("warden / in-process    ops/s ratio");
            assertThat(table.lines().filter(line -> line.startsWith("  ops/s")).toList())
                    .allMatch(line -> line.contains("n/a"));
            assertThat(Charts.svg(results, Scenario.S10, CONTENDERS, "footer")).contains("write wait p99, ms")
                    .contains(">redisson</text>").doesNotContain(">floor</text>");
        }
    }

    @Test
    void correctLocksPassTheChecks() throws Exception {
        try (Contender ceiling = new InProcessContender()) {
            Map<String, Double> fair = Scenario.S10.run(ceiling, Duration.ofMillis(200), "fair:");
            assertThat(fair.get("overlaps")).isZero();
            assertThat(fair.get("writes/s")).isPositive();
            Map<String, Double> fairPermits = Scenario.S11.run(ceiling, Duration.ofMillis(200), "fair:");
            assertThat(fairPermits.get("max holders")).isEqualTo(4.0);
            assertThat(fairPermits.get("over limit")).isZero();
        }
        Map<String, Double> readWrite = Scenario.S10.run(new InProcess(new ReentrantReadWriteLock(), 4),
                Duration.ofMillis(200), "ok:");
        assertThat(readWrite.get("overlaps")).isZero();
        assertThat(readWrite.get("max readers")).isGreaterThanOrEqualTo(2);
        Map<String, Double> semaphore = Scenario.S11.run(new InProcess(new ReentrantReadWriteLock(), 4),
                Duration.ofMillis(200), "ok:");
        assertThat(semaphore.get("max holders")).isEqualTo(4.0);
        assertThat(semaphore.get("over limit")).isZero();
    }

    @Test
    void aWriterAmongReadersOrAPermitTooManyFailsTheRun() {
        // A broken read-write lock whose write half is its read half: writers come in among readers.
        assertThatThrownBy(() -> Scenario.S10.run(new InProcess(new ReentrantReadWriteLock(), 4) {
            @Override
            public Release acquireWrite(String key) throws Exception {
                return acquireRead(key);
            }
        }, Duration.ofMillis(200), "broken:")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CORRECTNESS VIOLATION").hasMessageContaining("S10");
        assertThatThrownBy(() -> Scenario.S11.run(new InProcess(new ReentrantReadWriteLock(), 5),
                Duration.ofMillis(200), "broken:")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CORRECTNESS VIOLATION").hasMessageContaining("over limit");
    }

    /** A read-write lock and a semaphore in this JVM, the semaphore with as many permits as it is given. */
    private static class InProcess implements Contender {
        private final ReentrantReadWriteLock lock;
        private final Semaphore permits;

        InProcess(ReentrantReadWriteLock lock, int permits) {
            this.lock = lock;
            this.permits = new Semaphore(permits);
        }

        @Override
        public String name() {
            return "in-process";
        }

        @Override
        public Release acquire(String key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Release acquireRead(String key) throws Exception {
            lock.readLock().lockInterruptibly();
            return lock.readLock()::unlock;
        }

        @Override
        public Release acquireWrite(String key) throws Exception {
            lock.writeLock().lockInterruptibly();
            return lock.writeLock()::unlock;
        }

        @Override
        public Release acquirePermit(String key, int ignored) throws Exception {
            permits.acquire();
            return permits::release;
        }

        @Override
        public void close() {
        }
    }
}
