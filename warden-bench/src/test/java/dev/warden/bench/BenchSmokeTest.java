package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A few seconds of every lock scenario for every contender: the benchmark keeps working. Figures are not judged. The
 * read-write lock and the semaphore have {@link SharedScenariosSmokeTest}.
 */
// Tagged "full": a scale smoke test of the bench (about a minute or more); in `mvn -B verify -Pfull` and CI.
@Tag("full")
class BenchSmokeTest {

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void everyContenderRunsEveryScenarioSafely() throws Exception {
        try (Backends backends = Backends.start(null, Contenders.NAMES)) {
            RedisServer server = backends.redisServer();
            // S9's 64 clients per contender, and its smaller sizes, have ManyClientsSmokeTest, for Warden and Redisson.
            List<Scenario> scenarios = Arrays.stream(Scenario.values())
                    .filter(scenario -> scenario.kind == Scenario.Kind.LOCK && !scenario.isS9()).toList();
            Bench.Results results = Bench.run(backends.servers(), scenarios, Contenders.NAMES, Duration.ofMillis(300),
                    1, Duration.ZERO);
            for (String contender : Contenders.NAMES) {
                for (Scenario scenario : scenarios) {
                    if (!takesPart(contender, scenario)) {
                        assertThat(results.median(scenario, contender, "ops/s")).as("%s %s", scenario, contender)
                                .isNaN();
                        continue;
                    }
                    assertThat(results.median(scenario, contender, "ops/s")).as("%s %s", scenario, contender)
                            .isPositive();
                    if (!contender.equals("curator")) {
                        // Every acquisition takes at least its release: the PING handoff one PING, and Warden among
                        // threads of one client one release (fair mode's registers the next of them; the default
                        // mode's waiters hold back for a holder of their client, which hands the lock over with one
                        // request, its check); every other lock at least two requests.
                        boolean oneRequest = contender.equals("ping-handoff")
                                || ((contender.equals("warden-fair") || contender.equals("warden"))
                                        && scenario.shared && !scenario.clientPerThread);
                        assertThat(results.requestsPerOp(scenario, contender)).as("%s %s", scenario, contender)
                                .isGreaterThanOrEqualTo(oneRequest ? 0.9 : 1.9);
                    }
                    assertServerCost(results, scenario, contender);
                }
                if (takesPart(contender, Scenario.S3)) {
                    assertThat(results.median(Scenario.S3, contender, "lost updates")).isZero();
                    assertThat(results.median(Scenario.S3, contender, "overlaps")).isZero();
                    assertThat(results.median(Scenario.S3, contender, "handoff p50 us")).as(contender)
                            .isPositive().isLessThanOrEqualTo(results.median(Scenario.S3, contender, "handoff p99 us"));
                }
            }
            assertThat(results.requestsPerOp(Scenario.S1, "curator")).isNaN();
            // The floor's pair is SET NX PX and an EVALSHA whose script calls GET and DEL: two requests, four
            // commands, with nothing to retry on keys of its own. The PING line's pair is two PINGs.
            for (Scenario uncontended : List.of(Scenario.S1, Scenario.S2)) {
                assertThat(results.requestsPerOp(uncontended, "floor")).isBetween(1.9, 2.1);
                assertThat(results.median(uncontended, "floor", Bench.Results.COMMANDS)).as("%s", uncontended)
                        .isBetween(3.99, 4.01);
                assertThat(results.median(uncontended, "ping", Bench.Results.COMMANDS)).as("%s", uncontended)
                        .isBetween(1.99, 2.01);
            }
            String capacity = Charts.capacity(results, scenarios, Contenders.NAMES, Map.of(), "footer");
            assertThat(capacity).startsWith("<svg").contains("S1: 1 thread").contains("S4C: ")
                    .contains(">warden</text>").contains(">floor</text>").doesNotContain(">curator</text>")
                    .contains(String.format(Locale.ROOT, ">%,.0f</text>", results.capacity(Scenario.S1, "floor")));
            String chart = Charts.svg(results, Scenario.S3, Contenders.NAMES, Bench.footer(server, 1,
                    Duration.ofMillis(300)));
            assertThat(chart).startsWith("<svg").contains(">warden</text>").contains(">curator</text>")
                    .doesNotContain(">ping</text>").contains("Redisson 4.7.0");
            // An uncontended Warden pair is two requests: one script to acquire, one to release.
            assertThat(results.requestsPerOp(Scenario.S1, "warden")).isBetween(1.9, 2.1);
            assertThat(results.table()).contains("S3: 8 threads, one key").contains("warden / redisson")
                    .contains("  redis capacity ops/s").contains("  commands/op")
                    .contains("warden / floor         redis cpu us/op ratio");
            assertThat(results.json("redis://x", server, Duration.ofMillis(300), 1)).contains("\"S1/warden\"")
                    .contains(String.format(Locale.ROOT, "\"redis capacity ops/s\": %.3f",
                            results.capacity(Scenario.S1, "warden")))
                    .contains(String.format(Locale.ROOT, "\"commands/op\": %.3f",
                            results.median(Scenario.S1, "warden", Bench.Results.COMMANDS)))
                    // Each round's value beside the median (one round here), the requests counted in it too.
                    .contains(String.format(Locale.ROOT, "\"S1/warden\": {\"ops/s\": %.3f,", results.median(
                            Scenario.S1, "warden", "ops/s")))
                    .contains(String.format(Locale.ROOT, "\"rounds\": {\"ops/s\": [%.3f],", results.median(
                            Scenario.S1, "warden", "ops/s")))
                    .contains(String.format(Locale.ROOT, "\"requests/op\": [%.3f]",
                            results.requestsPerOp(Scenario.S1, "warden")));
        }
    }

    /**
     * What an acquisition cost Redis: some of its main thread's CPU, the capacity that implies (10^6 over it), and
     * some commands, as many as requests at least where nothing is contended; none of it for Curator and the
     * in-process ceiling, which do not use Redis.
     */
    static void assertServerCost(Bench.Results results, Scenario scenario, String contender) {
        String as = scenario + " " + contender;
        double cpu = results.median(scenario, contender, Bench.Results.REDIS_CPU);
        if (contender.equals("curator") || contender.equals("in-process")) {
            assertThat(cpu).as(as).isNaN();
            assertThat(results.capacity(scenario, contender)).as(as).isNaN();
            assertThat(results.median(scenario, contender, Bench.Results.COMMANDS)).as(as).isNaN();
            return;
        }
        // A request costs Redis some microseconds; no lock costs a single-threaded server 100 ms.
        assertThat(cpu).as(as).isPositive().isLessThan(100_000);
        assertThat(results.capacity(scenario, contender)).as(as).isCloseTo(1e6 / cpu, within(1e-6));
        double commands = results.median(scenario, contender, Bench.Results.COMMANDS);
        assertThat(commands).as(as).isPositive();
        // Every request is a command. The requests are counted in another window than the commands (with MONITOR,
        // in the first round), so where a lock retries or waits, as many as it happens to: only where nothing is
        // contended must the two windows agree.
        if (!scenario.shared) {
            assertThat(commands).as(as).isGreaterThanOrEqualTo(0.95 * results.requestsPerOp(scenario, contender));
        }
    }

    /** The lines that price something run only where they measure it; every lock runs everywhere. */
    private static boolean takesPart(String contender, Scenario scenario) {
        return switch (contender) {
            case "ping", "floor-fenced" -> !scenario.shared;
            case "ping-handoff" -> scenario.shared && !scenario.clientPerThread;
            default -> true;
        };
    }

    @Test
    void manyLeasesAreRenewedInBatchesAndAReleasedLockLeavesOnlyACounterWhereATokenWasAsked() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            var renewals = Resources.renewals("warden", server.uri(), 200, Duration.ofSeconds(3),
                    Duration.ofSeconds(3));
            assertThat(renewals.get("leases still held")).isEqualTo(200.0);
            // 200 leases in batches of up to 100: about 2 requests per renewal period, 0.01 per lease.
            assertThat(renewals.get("renew requests per lease per period")).isBetween(0.004, 0.03);
            // Each renewal due costs Redis some CPU and at least one command inside the batch's script.
            double perRenewal = renewals.get(Resources.REDIS_CPU_PER_RENEWAL);
            assertThat(perRenewal).isPositive().isLessThan(10_000);
            assertThat(renewals.get(Resources.CAPACITY_PER_RENEWAL)).isCloseTo(1e6 / perRenewal, within(1e-6));
            assertThat(renewals.get(Resources.COMMANDS_PER_RENEWAL)).isGreaterThanOrEqualTo(0.9);
            // Warden renews each lease once per third of its lease: about one PEXPIREAT per renewal due (a 3 s hold
            // holds three periods, and the first renewal of each lease may fall just outside it).
            assertThat(renewals.get(Resources.RENEWALS_PERFORMED)).isBetween(0.6, 1.4);
            assertThat(renewals.get(Resources.REDIS_CPU_PER_RENEWAL_PERFORMED)).isPositive().isLessThan(10_000);
            var memory = Resources.memory("warden", server.uri(), 1000);
            assertThat(memory.get("keys per held lock")).isEqualTo(1.0);
            assertThat(memory.get("keys per released lock")).isEqualTo(0.0);
            assertThat(memory.get("keys per released fenced lock")).isEqualTo(1.0);
            assertThat(memory.get("redis bytes per held lock")).isPositive();
            assertThat(memory.get("redis bytes per fencing counter")).isPositive();
        }
    }

    /**
     * S8 at a small size: every lock is still held after a renewal period, and Warden renews its leases in
     * batches and leaves no key behind; of Redisson's figures only that none was lost is judged.
     */
    @Test
    void manyLocksHeldForARenewalPeriodAreNeitherLostNorRenewedOneByOne() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            for (String contender : List.of("warden", "redisson")) {
                var figures = Scale.run("S8", contender, server.uri(), 2_000, Duration.ofSeconds(3));
                assertThat(figures.get("locks lost in the period")).as(contender).isZero();
                assertThat(figures.get("locks not held at release")).as(contender).isZero();
                assertThat(figures.get("redis bytes per held lock")).as(contender).isPositive();
                // The heap per lease is not judged: at 2,000 leases it is within what a collection leaves to chance.
                assertThat(figures).as(contender).containsKey("client heap bytes per lease");
                if (contender.equals("warden")) {
                    assertThat(figures.get("keys left after release")).isZero();
                    // 2,000 leases in batches of up to 100: about 20 requests in the period, 0.01 per lease.
                    assertThat(figures.get("renew requests per lease per period")).isBetween(0.004, 0.05);
                }
            }
            assertThat(Scale.key("S8", 2_000)).isEqualTo("S8 at 2,000");
        }
    }
}
