package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The spread of a run's figures over its rounds, and Warden's ratios with theirs, in the table and results.json, on
 * synthetic rounds: no Redis.
 */
class ResultsTest {
    private static final double NAN = Double.NaN;

    @Test
    void theSpreadIsTheMedianLeastAndMostOfTheRoundsThatHaveAValue() {
        Spread odd = Spread.of(List.of(3.0, 1.0, 2.0));
        assertThat(odd.value()).isEqualTo(2.0);
        assertThat(odd.min()).isEqualTo(1.0);
        assertThat(odd.max()).isEqualTo(3.0);
        assertThat(odd.rounds()).containsExactly(3.0, 1.0, 2.0);
        assertThat(odd.counted()).isEqualTo(3);
        // An even count: the mean of the middle two. A round without a value is kept but counts for nothing.
        Spread even = Spread.of(List.of(4.0, NAN, 1.0, 2.0, 8.0));
        assertThat(even.value()).isEqualTo(3.0);
        assertThat(even.min()).isEqualTo(1.0);
        assertThat(even.max()).isEqualTo(8.0);
        assertThat(even.counted()).isEqualTo(4);
        assertThat(even.rounds()).hasSize(5);
        Spread none = Spread.of(List.of(NAN, NAN));
        assertThat(none.value()).isNaN();
        assertThat(none.min()).isNaN();
        assertThat(none.max()).isNaN();
        assertThat(Spread.of(List.of()).value()).isNaN();
        // A ratio: of the medians, with the least and most ratio of the rounds of the same index.
        Spread ratio = Spread.ratio(Spread.of(List.of(1000.0, 3000.0, 2000.0)), Spread.of(List.of(500.0, 2000.0,
                1000.0)));
        assertThat(ratio.value()).isEqualTo(2.0);
        assertThat(ratio.min()).isEqualTo(1.5);
        assertThat(ratio.max()).isEqualTo(2.0);
        assertThat(ratio.rounds()).containsExactly(2.0, 1.5, 2.0);
    }

    @Test
    void everyFigureCarriesItsRoundsAndSpreadAndWardensRatiosTheirs() {
        Bench.Results results = threeRounds();
        // Medians as before.
        assertThat(results.median(Scenario.S1, "warden", "ops/s")).isEqualTo(2000.0);
        assertThat(results.requestsPerOp(Scenario.S1, "warden")).isEqualTo(2.0);
        assertThat(results.median(Scenario.S1, "warden", Bench.Results.COMMANDS)).isEqualTo(6.0);
        // Capacity: 10^6 over the median CPU, and over each round's.
        Spread capacity = results.spread(Scenario.S1, "warden", Bench.Results.CAPACITY);
        assertThat(capacity.value()).isCloseTo(25_000, within(1e-6));
        assertThat(capacity.min()).isCloseTo(20_000, within(1e-6));
        assertThat(capacity.max()).isCloseTo(40_000, within(1e-6));
        // Warden over Redisson: CPU 40 over 100, rounds 50/100, 40/80, 25/100.
        Spread cpu = results.ratio(Scenario.S1, "redisson", Bench.Results.REDIS_CPU);
        assertThat(cpu.value()).isCloseTo(0.4, within(1e-9));
        assertThat(cpu.min()).isCloseTo(0.25, within(1e-9));
        assertThat(cpu.max()).isCloseTo(0.5, within(1e-9));
        assertThat(results.ratioFigures(Scenario.S1)).containsExactly("ops/s", "pair p99 us",
                Bench.Results.REDIS_CPU, Bench.Results.REQUESTS, Bench.Results.COMMANDS);

        String json = results.json("redis://x", null, Duration.ofSeconds(1), 3);
        assertWellFormed(json);
        assertThat(json).doesNotContain("NaN").contains("\"rounds\": 3")
                // The medians, flat as before; then each round's value; then the spread.
                .contains("\"S1/warden\": {\"ops/s\": 2000.000, \"pair p50 us\": 20.000, \"pair p99 us\": 40.000, "
                        + "\"redis cpu us/op\": 40.000, \"redis capacity ops/s\": 25000.000, \"requests/op\": 2.000, "
                        + "\"commands/op\": 6.000,")
                .contains("\"rounds\": {\"ops/s\": [1000.000, 3000.000, 2000.000], \"pair p50 us\": [10.000, 30.000, "
                        + "20.000], \"pair p99 us\": [40.000, 50.000, 30.000], \"redis cpu us/op\": [50.000, 40.000, "
                        + "25.000], \"redis capacity ops/s\": [20000.000, 25000.000, 40000.000], \"requests/op\": "
                        + "[2.000, 2.000, 3.000], \"commands/op\": [5.000, null, 7.000]}")
                .contains("\"spread\": {\"ops/s\": {\"min\": 1000.000, \"median\": 2000.000, \"max\": 3000.000}")
                .contains("\"redis capacity ops/s\": {\"min\": 20000.000, \"median\": 25000.000, \"max\": 40000.000}")
                .contains("\"commands/op\": {\"min\": 5.000, \"median\": 6.000, \"max\": 7.000}")
                // A contender that uses no Redis: no CPU, in any round.
                .contains("\"redis cpu us/op\": [null, null, null]")
                .contains("\"redis cpu us/op\": {\"min\": null, \"median\": null, \"max\": null}")
                // Warden's ratios: of the medians, the least and most of the rounds, and each round's.
                .contains("\"wardenOver\": {")
                .contains("\"S1/redisson\": {\"ops/s\": {\"ratio\": 2.000, \"min\": 1.500, \"max\": 2.000, "
                        + "\"rounds\": [2.000, 1.500, 2.000]}, \"pair p99 us\": {\"ratio\": 0.400,")
                .contains("\"redis cpu us/op\": {\"ratio\": 0.400, \"min\": 0.250, \"max\": 0.500, \"rounds\": "
                        + "[0.500, 0.500, 0.250]}")
                .contains("\"S1/curator\": {\"ops/s\": {\"ratio\": 100.000,")
                .doesNotContain("\"S1/warden\": {\"ops/s\": {\"ratio\"");

        String table = results.table();
        assertThat(table).contains("S1: 1 thread, uncontended lock+unlock (median of rounds; below each, the least and "
                + "most round)");
        assertThat(table.lines().filter(line -> line.startsWith("    min-max")).toList()).hasSize(7);
        assertThat(table).contains("  ops/s                          2000           1000          20.00\n"
                        + "    min-max                 1000-3000       500-2000    10.00-30.00\n")
                .contains("  redis cpu us/op               40.00            100            n/a\n"
                        + "    min-max               25.00-50.00      80.00-100            n/a\n")
                .contains("  warden / redisson      ops/s ratio 2.00 (rounds 1.50-2.00)\n")
                .contains("  warden / redisson      redis cpu us/op ratio 0.40 (rounds 0.25-0.50)\n")
                .contains("  warden / curator       redis cpu us/op ratio n/a\n");
    }

    @Test
    void oneRoundHasNoSpreadToShowButItsValueInTheJson() {
        Bench.Results results = new Bench.Results(List.of(Scenario.S1), List.of("warden", "redisson"));
        round(results, "warden", 1000, 10, 20, 50, 2, 5);
        round(results, "redisson", 500, 10, 40, 100, 3, 12);
        assertThat(results.table()).contains("(median of rounds)\n").doesNotContain("min-max")
                .contains("  warden / redisson      ops/s ratio 2.00\n");
        String json = results.json("redis://x", null, Duration.ofSeconds(1), 1);
        assertWellFormed(json);
        assertThat(json).contains("\"rounds\": {\"ops/s\": [1000.000],")
                .contains("\"ops/s\": {\"ratio\": 2.000, \"min\": 2.000, \"max\": 2.000, \"rounds\": [2.000]}");
    }

    /** S1, three rounds of Warden, Redisson and Curator (which uses no Redis), as {@link Bench#run} adds them. */
    private static Bench.Results threeRounds() {
        Bench.Results results = new Bench.Results(List.of(Scenario.S1), List.of("warden", "redisson", "curator"));
        double[][] warden = {{1000, 10, 40, 50, 2, 5}, {3000, 30, 50, 40, 2, NAN}, {2000, 20, 30, 25, 3, 7}};
        double[][] redisson = {{500, 20, 100, 100, 3, 12}, {2000, 25, 125, 80, 3, 12}, {1000, 30, 75, 100, 3, 12}};
        double[][] curator = {{10, 100, 200, NAN, NAN, NAN}, {20, 100, 200, NAN, NAN, NAN},
                {30, 100, 200, NAN, NAN, NAN}};
        for (int r = 0; r < 3; r++) {
            round(results, "warden", warden[r]);
            round(results, "redisson", redisson[r]);
            round(results, "curator", curator[r]);
        }
        return results;
    }

    /** One round of S1: the requests counted first, then the timed run's figures and its cost to Redis. */
    private static void round(Bench.Results results, String contender, double... figures) {
        results.requests(Scenario.S1, contender, figures[4]);
        Map<String, Double> measured = new LinkedHashMap<>();
        measured.put("ops/s", figures[0]);
        measured.put("pair p50 us", figures[1]);
        measured.put("pair p99 us", figures[2]);
        measured.put(Bench.Results.REDIS_CPU, figures[3]);
        measured.put(Bench.Results.COMMANDS, figures[5]);
        results.add(Scenario.S1, contender, measured);
    }

    /** Braces and brackets outside strings nest and close, and no value is left bare. */
    private static void assertWellFormed(String json) {
        int depth = 0;
        boolean inString = false;
        for (char c : json.toCharArray()) {
            if (c == '"') {
                inString = !inString;
            } else if (!inString && (c == '{' || c == '[')) {
                depth++;
            } else if (!inString && (c == '}' || c == ']')) {
                depth--;
                assertThat(depth).as(json).isNotNegative();
            }
        }
        assertThat(depth).as(json).isZero();
        assertThat(inString).as(json).isFalse();
        assertThat(json).doesNotContain("NaN").doesNotContain("Infinity").doesNotContain(",}").doesNotContain(", }")
                .doesNotContain(",]").doesNotContain(",\n}").doesNotContain(",\n  }");
    }
}
