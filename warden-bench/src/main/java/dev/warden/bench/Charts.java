package dev.warden.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One SVG chart per scenario: two panels of horizontal bars, throughput (higher is better) and the 99th percentile
 * of the pair time or the wait (lower is better), one bar per contender, Warden's highlighted. Plain SVG, so that
 * docs/bench can embed it and no plotting library is needed.
 */
final class Charts {
    /** The width of the names' column, widened for a longer name (such as redisson-expirable). */
    private static final int LABEL = 120;
    /** About the width of a character of a name, for widening the names' column. */
    private static final int CHAR = 7;
    private static final int PANEL = 300;
    private static final int GAP = 40;
    private static final int BAR = 18;
    private static final int ROW = 24;
    private static final int TOP = 58;

    private Charts() {
    }

    /**
     * @param results  the medians of a run
     * @param scenario the scenario to draw
     * @param footer   a line naming the machine and versions
     * @return the SVG document, or null if no contender ran the scenario
     */
    static String svg(Bench.Results results, Scenario scenario, List<String> contenders, String footer) {
        String latency = scenario.latencyFigure();
        List<String> names = new ArrayList<>();
        for (String contender : contenders) {
            if (!Double.isNaN(results.median(scenario, contender, "ops/s"))) {
                names.add(contender);
            }
        }
        if (names.isEmpty()) {
            return null;
        }
        int label = Math.max(LABEL, 16 + CHAR * names.stream().mapToInt(String::length).max().orElse(0));
        int width = label + 2 * PANEL + GAP + 20;
        int height = TOP + names.size() * ROW + 40;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n", width, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s: %s"
                + "</text>%n", scenario, escape(scenario.description)));
        panel(svg, results, scenario, names, "ops/s", scenario.kind != Scenario.Kind.LOCK
                ? "acquisitions/s (higher is better)" : scenario.shared ? "handoffs/s (higher is better)"
                : "lock+unlock ops/s (higher is better)", label);
        panel(svg, results, scenario, names, latency, latency.replace(" us", "") + ", ms (lower is better)",
                label + PANEL + GAP);
        for (int i = 0; i < names.size(); i++) {
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\"%s>%s</text>%n",
                    label - 8, TOP + i * ROW + BAR - 4, names.get(i).equals("warden") ? " font-weight=\"bold\"" : "",
                    escape(names.get(i))));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\" fill=\"#555\" font-size=\"10\">%s</text>%n",
                height - 12, escape(footer)));
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static void panel(StringBuilder svg, Bench.Results results, Scenario scenario, List<String> names,
                              String figure, String title, int x) {
        double max = 0;
        for (String name : names) {
            double value = results.median(scenario, name, figure);
            if (!Double.isNaN(value)) {
                max = Math.max(max, value);
            }
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n", x,
                TOP - 10, escape(title)));
        for (int i = 0; i < names.size(); i++) {
            double value = results.median(scenario, names.get(i), figure);
            if (Double.isNaN(value)) {
                continue;
            }
            boolean latency = !figure.equals("ops/s");
            double shown = latency ? value / 1000 : value;
            int length = max == 0 ? 0 : (int) Math.round((PANEL - 70) * value / max);
            int y = TOP + i * ROW;
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                    x, y, Math.max(length, 1), BAR, names.get(i).equals("warden") ? "#1f6feb" : "#9aa4af"));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", x + length + 4,
                    y + BAR - 4, latency ? String.format(Locale.ROOT, shown >= 10 ? "%.0f" : "%.2f", shown)
                            : String.format(Locale.ROOT, "%,.0f", shown)));
        }
    }

    /** @return {@code text} with the characters XML gives a meaning escaped */
    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
