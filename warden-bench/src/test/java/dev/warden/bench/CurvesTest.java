package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The curve of a scale scenario or of S9: a line per contender through its figure at each size, and none for one
 * size.
 */
class CurvesTest {

    @Test
    void eachContenderHasALineThroughItsFigureAtEverySize() {
        Map<Integer, Map<String, Map<String, Double>>> bySize = new LinkedHashMap<>();
        bySize.put(100_000, Map.of("warden", Map.of("redis bytes per held lock", 149.0),
                "redisson", Map.of("redis bytes per held lock", 186.0)));
        bySize.put(1_000_000, Map.of("warden", Map.of("redis bytes per held lock", 145.0),
                "redisson", Map.of("redis bytes per held lock", 177.0)));
        String svg = Curves.svg("S8", bySize, "2 cores");

        assertThat(svg).startsWith("<svg").contains(">100,000</text>").contains(">1,000,000</text>")
                .contains(">149</text>").contains(">177</text>").contains("— warden").contains("2 cores");
        // Two points per contender make a line of two: a move and a draw, in the contender's color.
        assertThat(svg).containsPattern("<path d=\"M\\d+ \\d+ L\\d+ \\d+\" stroke=\"#1f6feb\"")
                .containsPattern("<path d=\"M\\d+ \\d+ L\\d+ \\d+\" stroke=\"#9aa4af\"");
        // The larger value sits higher (a smaller y) within a panel.
        assertThat(y(svg, "177")).isLessThan(y(svg, "145"));
    }

    @Test
    void aRateNearZeroIsDrawnOnTheScaleOfOneAndWrittenAsValidXml() {
        Map<Integer, Map<String, Map<String, Double>>> bySize = new LinkedHashMap<>();
        bySize.put(1_000, Map.of("warden", Map.of("scripts per waiter per s (held)", 0.0002)));
        bySize.put(10_000, Map.of("warden", Map.of("scripts per waiter per s (held)", 0.0)));
        String svg = Curves.svg("S7", bySize, "");

        assertThat(svg).contains(">&lt;0.001</text>").doesNotContain("><0.001").contains(">0</text>");
        // On an axis up to 1 (a script per waiter per second), 0.0002 sits on the zero line, not at the top.
        assertThat(y(svg, "&lt;0.001")).isGreaterThan(200);
    }

    @Test
    void s9IsDrawnFromTheMediansOfItsThreeSizesByTheirClients() {
        List<String> contenders = List.of("warden", "floor", "redisson");
        Bench.Results results = new Bench.Results(Scenario.s9Sizes(), contenders);
        for (Scenario size : Scenario.s9Sizes()) {
            for (String contender : contenders) {
                // Three rounds, the median in the middle: 1,000 handoffs/s per client of S9_8 for Warden, etc.
                double handoffs = (contender.equals("warden") ? 1_000 : contender.equals("floor") ? 700 : 150)
                        * size.threads;
                for (double factor : new double[] {0.5, 1, 3}) {
                    results.add(size, contender, Map.of("ops/s", handoffs * factor, "jain", 0.99,
                            "wait p99 us", 1_000.0 * size.threads / factor));
                }
            }
        }
        Map<Integer, Map<String, Map<String, Double>>> bySize = Curves.s9(results, Scenario.s9Sizes(), contenders);
        assertThat(bySize).containsOnlyKeys(8, 24, 64);
        assertThat(bySize.get(24).get("warden")).containsEntry(Curves.S9_HANDOFFS, 24_000.0)
                .containsEntry(Curves.S9_JAIN, 0.99).containsEntry(Curves.S9_WAIT, 24.0);

        String svg = Curves.svg("S9", bySize, "median of 3 rounds");
        assertThat(svg).contains("S9: 64 clients, 8 names; 8 clients per name at every size")
                .contains(">8</text>").contains(">24</text>").contains(">64</text>").contains(">clients</text>")
                .contains(">handoffs/s</text>").contains(">Jain's index</text>").contains(">wait p99 ms</text>")
                .contains(">64,000</text>").contains(">9,600</text>").contains(">64.0</text>")
                .contains("— floor").contains("median of 3 rounds");
        // Three sizes make a line of three points per contender and figure: 3 figures, 3 contenders.
        assertThat(java.util.regex.Pattern.compile("<path d=\"M\\d+ \\d+ L\\d+ \\d+ L\\d+ \\d+\"")
                .matcher(svg).results().count()).isEqualTo(9);
    }

    @Test
    void s9HasNoCurveWithoutItsFullSizeAndASmallerOne() {
        Bench.Results results = new Bench.Results(Scenario.s9Sizes(), List.of("warden"));
        Scenario.s9Sizes().forEach(size -> results.add(size, "warden", Map.of("ops/s", 1.0, "jain", 1.0,
                "wait p99 us", 1.0)));
        assertThat(Curves.s9(results, List.of(Scenario.S9_8, Scenario.S9_24), List.of("warden"))).isEmpty();
        assertThat(Curves.s9(results, List.of(Scenario.S9, Scenario.S3C), List.of("warden"))).isEmpty();
        assertThat(Curves.s9(results, List.of(Scenario.S9_8, Scenario.S9), List.of("warden"))).containsOnlyKeys(8,
                64);
    }

    @Test
    void oneSizeIsNoCurve() {
        assertThat(Curves.svg("S8", Map.of(1_000, Map.of("warden", Map.of("redis bytes per held lock", 1.0))), ""))
                .isNull();
    }

    /** The y of the label that shows {@code value}. */
    private static int y(String svg, String value) {
        var matcher = java.util.regex.Pattern.compile("y=\"(\\d+)\" font-size=\"10\" fill=\"#[0-9a-f]+\">" + value
                + "</text>").matcher(svg);
        assertThat(matcher.find()).as("a label %s", value).isTrue();
        return Integer.parseInt(matcher.group(1));
    }
}
