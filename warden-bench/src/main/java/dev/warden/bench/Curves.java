package dev.warden.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One SVG per {@link Scale scale} scenario run at several sizes: a panel per figure, the figure against the size, a
 * line per contender (Warden's highlighted), so that the reader sees what grows. Plain SVG, as {@link Charts}.
 */
final class Curves {
    private static final int PANEL_WIDTH = 260;
    private static final int PANEL_HEIGHT = 160;
    private static final int GAP = 70;
    private static final int LEFT = 60;
    private static final int TOP = 72;

    private Curves() {
    }

    /** @return the figures a scale scenario's curve shows */
    static List<String> figures(String scenario) {
        return switch (scenario) {
            case "S7" -> List.of("scripts per waiter per s (held)", "handoff p99 ms", "client threads added");
            case "S8" -> List.of("redis bytes per held lock", "client heap bytes per lease",
                    "renew requests per lease per period");
            default -> List.of();
        };
    }

    /**
     * @param scenario the scale scenario
     * @param bySize   its figures by size, then by contender
     * @param footer   a line naming the machine and versions
     * @return the SVG document, or null with fewer than two sizes
     */
    static String svg(String scenario, Map<Integer, Map<String, Map<String, Double>>> bySize, String footer) {
        if (bySize.size() < 2) {
            return null;
        }
        List<Integer> sizes = new ArrayList<>(bySize.keySet());
        sizes.sort(Integer::compare);
        List<String> contenders = new ArrayList<>();
        bySize.values().forEach(byContender -> byContender.keySet().stream().filter(c -> !contenders.contains(c))
                .forEach(contenders::add));
        List<String> figures = figures(scenario);
        int width = LEFT + figures.size() * (PANEL_WIDTH + GAP);
        int height = TOP + PANEL_HEIGHT + 70;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n", width, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s: %s"
                + "</text>%n", scenario, Charts.escape(Scale.description(scenario))));
        for (int f = 0; f < figures.size(); f++) {
            panel(svg, figures.get(f), sizes, contenders, bySize, LEFT + f * (PANEL_WIDTH + GAP));
        }
        for (int c = 0; c < contenders.size(); c++) {
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"40\" fill=\"%s\"%s>%s</text>%n", 10 + c * 110,
                    color(contenders.get(c)), contenders.get(c).equals("warden") ? " font-weight=\"bold\"" : "",
                    "— " + Charts.escape(contenders.get(c))));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\" fill=\"#555\" font-size=\"10\">%s</text>%n",
                height - 10, Charts.escape(footer)));
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static void panel(StringBuilder svg, String figure, List<Integer> sizes, List<String> contenders,
                              Map<Integer, Map<String, Map<String, Double>>> bySize, int x) {
        double max = 0;
        for (Map<String, Map<String, Double>> byContender : bySize.values()) {
            for (Map<String, Double> figures : byContender.values()) {
                double value = figures.getOrDefault(figure, Double.NaN);
                if (!Double.isNaN(value)) {
                    max = Math.max(max, value);
                }
            }
        }
        double top = Math.max(max * 1.15, floor(figure));
        int bottom = TOP + PANEL_HEIGHT;
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n", x,
                TOP - 8, Charts.escape(figure)));
        svg.append(String.format(Locale.ROOT, "<path d=\"M%d %d V%d H%d\" stroke=\"#999\" fill=\"none\"/>%n", x, TOP,
                bottom, x + PANEL_WIDTH));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#555\">%s</text>%n",
                x - 4, TOP + 4, Charts.escape(number(top))));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#555\">0</text>%n",
                x - 4, bottom));
        for (int i = 0; i < sizes.size(); i++) {
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">"
                    + "%,d</text>%n", xOf(x, i, sizes.size()), bottom + 16, sizes.get(i)));
        }
        for (String contender : contenders) {
            StringBuilder path = new StringBuilder();
            for (int i = 0; i < sizes.size(); i++) {
                Map<String, Double> figures = bySize.get(sizes.get(i)).get(contender);
                double value = figures == null ? Double.NaN : figures.getOrDefault(figure, Double.NaN);
                if (Double.isNaN(value)) {
                    continue;
                }
                int px = xOf(x, i, sizes.size());
                int py = bottom - (int) Math.round(PANEL_HEIGHT * value / top);
                path.append(path.length() == 0 ? "M" : " L").append(px).append(' ').append(py);
                svg.append(String.format(Locale.ROOT, "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"%s\"/>%n", px, py,
                        color(contender)));
                svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"%s\">%s"
                        + "</text>%n", px + 4, py - 4, color(contender), Charts.escape(number(value))));
            }
            if (path.length() > 0) {
                svg.append(String.format(Locale.ROOT, "<path d=\"%s\" stroke=\"%s\" stroke-width=\"%s\" "
                        + "fill=\"none\"/>%n", path, color(contender), contender.equals("warden") ? "2.5" : "1.5"));
            }
        }
    }

    /**
     * The least top of a figure's axis: for the scripts per waiter per second, 1, what a waiter that renews its
     * registration every second would cost, so that a flat line near zero reads as near zero; else whatever is above
     * zero.
     */
    private static double floor(String figure) {
        return figure.startsWith("scripts per waiter") ? 1 : 1e-9;
    }

    /** The x of the i-th of n sizes: evenly spaced, as the sizes are 10, 30 and 100 % rather than a scale. */
    private static int xOf(int x, int i, int n) {
        return x + 20 + (PANEL_WIDTH - 40) * i / Math.max(1, n - 1);
    }

    private static String color(String contender) {
        return contender.equals("warden") ? "#1f6feb" : "#9aa4af";
    }

    private static String number(double value) {
        return value == 0 ? "0" : value < 0.001 ? "<0.001" : value >= 100 ? String.format(Locale.ROOT, "%,.0f", value)
                : value >= 1 ? String.format(Locale.ROOT, "%.1f", value)
                : String.format(Locale.ROOT, "%.3f", value);
    }
}
