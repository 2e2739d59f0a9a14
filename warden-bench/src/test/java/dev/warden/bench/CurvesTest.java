package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The curve of a scale scenario: a line per contender through its figure at each size, and none for one size. */
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
