package dev.warden.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

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

    /**
     * One chart of Redis's capacity in every scenario: the acquisitions per second one Redis core serves at each
     * contender's median main-thread CPU per acquisition (renewals per second in S5), a group of bars per scenario,
     * Warden's and the floor's highlighted. Each group has a scale of its own, since scenarios differ by far more
     * than contenders do.
     *
     * @param s5 S5's figures per contender, or an empty map
     * @return the SVG document, or null if no contender has a capacity anywhere
     */
    static String capacity(Bench.Results results, List<Scenario> scenarios, List<String> contenders,
                           Map<String, Map<String, Double>> s5, String footer) {
        Map<String, Map<String, Double>> groups = new LinkedHashMap<>();
        for (Scenario scenario : scenarios) {
            Map<String, Double> bars = new LinkedHashMap<>();
            for (String contender : contenders) {
                double value = results.capacity(scenario, contender);
                if (!Double.isNaN(value)) {
                    bars.put(contender, value);
                }
            }
            if (!bars.isEmpty()) {
                groups.put(scenario + ": " + scenario.description, bars);
            }
        }
        Map<String, Double> renewals = new LinkedHashMap<>();
        s5.forEach((contender, figures) -> {
            Double value = figures.get(Resources.CAPACITY_PER_RENEWAL);
            if (value != null && !Double.isNaN(value)) {
                renewals.put(contender, value);
            }
        });
        if (!renewals.isEmpty()) {
            groups.put("S5: renewals/s of one core, leases kept alive by the watchdog", renewals);
        }
        if (groups.isEmpty()) {
            return null;
        }
        int label = Math.max(LABEL, 16 + CHAR * contenders.stream().mapToInt(String::length).max().orElse(0));
        int panel = 2 * PANEL;
        int width = label + panel + 90;
        int rows = groups.values().stream().mapToInt(bars -> bars.size() + 1).sum();
        int height = TOP + rows * ROW + 40;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n", width, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">"
                + "Redis capacity: acquisitions/s of one Redis core (higher is better)</text>%n"));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"38\" fill=\"#555\">10^6 / the main thread's CPU "
                + "us per acquisition (per renewal in S5); each scenario on a scale of its own</text>%n"));
        int y = TOP;
        for (Map.Entry<String, Map<String, Double>> group : groups.entrySet()) {
            svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>%n",
                    y + BAR - 4, escape(group.getKey())));
            y += ROW;
            double max = group.getValue().values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
            for (Map.Entry<String, Double> bar : group.getValue().entrySet()) {
                String name = bar.getKey();
                int length = max == 0 ? 0 : (int) Math.round((panel - 20) * bar.getValue() / max);
                svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\"%s>%s</text>%n",
                        label - 8, y + BAR - 4, name.equals("warden") ? " font-weight=\"bold\"" : "", escape(name)));
                svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                        + "fill=\"%s\"/>%n", label, y, Math.max(length, 1), BAR, name.equals("warden") ? "#1f6feb"
                        : name.equals("floor") ? "#2da44e" : "#9aa4af"));
                svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%,.0f</text>%n", label + length + 4,
                        y + BAR - 4, bar.getValue()));
                y += ROW;
            }
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\" fill=\"#555\" font-size=\"10\">%s</text>%n",
                height - 12, escape(footer)));
        svg.append("</svg>\n");
        return svg.toString();
    }

    /** @return {@code text} with the characters XML gives a meaning escaped */
    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
