package dev.warden.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One SVG per {@link Scale scale} scenario run at several sizes, and one for S9 run with its smaller sizes
 * ({@link Scenario#s9Sizes()}): a panel per figure, the figure against the size, a line per contender (Warden's
 * highlighted), so that the reader sees what grows. Plain SVG, as {@link Charts}.
 */
final class Curves {
    private static final int PANEL_WIDTH = 260;
    private static final int PANEL_HEIGHT = 160;
    private static final int GAP = 70;
    private static final int LEFT = 60;
    private static final int TOP = 72;
    /** The least distance between the labels of two points at one size. */
    private static final int LABEL_GAP = 11;

    /** S9's handoffs per second, its "ops/s". */
    static final String S9_HANDOFFS = "handoffs/s";
    /** S9's Jain's index over the clients, its "jain". */
    static final String S9_JAIN = "Jain's index";
    /** S9's {@linkplain Scenario#latencyFigure() wait p99}, in milliseconds. */
    static final String S9_WAIT = "wait p99 ms";

    private Curves() {
    }

    /** @return the figures a scale scenario's or S9's curve shows */
    static List<String> figures(String scenario) {
        return switch (scenario) {
            case "S7" -> List.of("scripts per waiter per s (held)", "handoff p99 ms", "client threads added");
            case "S8" -> List.of("redis bytes per held lock", "client heap bytes per lease",
                    "renew requests per lease per period");
            case "S9" -> List.of(S9_HANDOFFS, S9_JAIN, S9_WAIT);
            default -> List.of();
        };
    }

    /**
     * S9's curve, from a run's medians: by size (the clients of {@link Scenario#S9} and of each of its smaller sizes
     * that the run has), then by contender (those that ran it), the handoffs per second, Jain's index and the wait
     * p99 in milliseconds.
     *
     * @return the figures by size; an empty map unless the run has S9 itself and at least one smaller size
     */
    static Map<Integer, Map<String, Map<String, Double>>> s9(Bench.Results results, List<Scenario> scenarios,
                                                            List<String> contenders) {
        Map<Integer, Map<String, Map<String, Double>>> bySize = new LinkedHashMap<>();
        List<Scenario> sizes = Scenario.s9Sizes().stream().filter(scenarios::contains).toList();
        if (!sizes.contains(Scenario.S9) || sizes.size() < 2) {
            return bySize;
        }
        for (Scenario size : sizes) {
            Map<String, Map<String, Double>> byContender = new LinkedHashMap<>();
            for (String contender : contenders) {
                double handoffs = results.median(size, contender, "ops/s");
                if (Double.isNaN(handoffs)) {
                    continue;
                }
                Map<String, Double> figures = new LinkedHashMap<>();
                figures.put(S9_HANDOFFS, handoffs);
                figures.put(S9_JAIN, results.median(size, contender, "jain"));
                figures.put(S9_WAIT, results.median(size, contender, size.latencyFigure()) / 1e3);
                byContender.put(contender, figures);
            }
            bySize.put(size.threads, byContender);
        }
        return bySize;
    }

    /**
     * @param scenario the scale scenario, or S9
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
                + "</text>%n", scenario, Charts.escape(description(scenario))));
        for (int f = 0; f < figures.size(); f++) {
            panel(svg, figures.get(f), sizes, contenders, bySize, LEFT + f * (PANEL_WIDTH + GAP));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">"
                    + "%s</text>%n", LEFT + f * (PANEL_WIDTH + GAP) + PANEL_WIDTH / 2, TOP + PANEL_HEIGHT + 34,
                    unit(scenario)));
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

    /**
     * @return the title's description: S9's from its enum, with the clients per name that all its sizes keep; a
     *         scale scenario's from {@link Scale#description}
     */
    private static String description(String scenario) {
        return scenario.equals("S9")
                ? String.format(Locale.ROOT, "%s; %d clients per name at every size", Scenario.S9.description,
                        Scenario.S9_PER_NAME)
                : Scale.description(scenario);
    }

    /** @return what the sizes count, written under each panel's axis */
    private static String unit(String scenario) {
        return switch (scenario) {
            case "S7" -> "waiters";
            case "S8" -> "locks";
            case "S9" -> "clients";
            default -> "";
        };
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
        double top = Math.max(max * 1.15, leastTop(figure));
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
        // Each point's y, by contender and size; then its label's, moved apart from the others at that size.
        Map<String, int[]> ys = new LinkedHashMap<>();
        for (String contender : contenders) {
            int[] y = new int[sizes.size()];
            for (int i = 0; i < sizes.size(); i++) {
                double value = value(bySize, sizes.get(i), contender, figure);
                y[i] = Double.isNaN(value) ? -1 : bottom - (int) Math.round(PANEL_HEIGHT * value / top);
            }
            ys.put(contender, y);
        }
        Map<String, int[]> labels = labels(ys, sizes.size());
        for (String contender : contenders) {
            StringBuilder path = new StringBuilder();
            for (int i = 0; i < sizes.size(); i++) {
                double value = value(bySize, sizes.get(i), contender, figure);
                if (Double.isNaN(value)) {
                    continue;
                }
                int px = xOf(x, i, sizes.size());
                int py = ys.get(contender)[i];
                path.append(path.length() == 0 ? "M" : " L").append(px).append(' ').append(py);
                svg.append(String.format(Locale.ROOT, "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"%s\"/>%n", px, py,
                        color(contender)));
                svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"%s\">%s"
                        + "</text>%n", px + 4, labels.get(contender)[i], color(contender),
                        Charts.escape(number(value))));
            }
            if (path.length() > 0) {
                svg.append(String.format(Locale.ROOT, "<path d=\"%s\" stroke=\"%s\" stroke-width=\"%s\" "
                        + "fill=\"none\"/>%n", path, color(contender), contender.equals("warden") ? "2.5" : "1.5"));
            }
        }
    }

    /** @return a contender's figure at a size, NaN where it has none */
    private static double value(Map<Integer, Map<String, Map<String, Double>>> bySize, int size, String contender,
                                String figure) {
        Map<String, Double> figures = bySize.get(size).get(contender);
        return figures == null ? Double.NaN : figures.getOrDefault(figure, Double.NaN);
    }

    /**
     * The y of each point's label: 4 above the point, but at each size at least {@value #LABEL_GAP} below the label
     * above it, so that the labels of close points (such as Jain's indexes all near 1) do not overprint each other.
     */
    private static Map<String, int[]> labels(Map<String, int[]> ys, int sizes) {
        Map<String, int[]> labels = new LinkedHashMap<>();
        ys.keySet().forEach(contender -> labels.put(contender, new int[sizes]));
        for (int i = 0; i < sizes; i++) {
            int column = i;
            List<String> topDown = ys.keySet().stream().filter(c -> ys.get(c)[column] >= 0)
                    .sorted((a, b) -> Integer.compare(ys.get(a)[column], ys.get(b)[column])).toList();
            int previous = Integer.MIN_VALUE / 2;
            for (String contender : topDown) {
                int y = Math.max(ys.get(contender)[column] - 4, previous + LABEL_GAP);
                labels.get(contender)[column] = y;
                previous = y;
            }
        }
        return labels;
    }

    /**
     * The least top of a figure's axis: for the scripts per waiter per second, 1, what a waiter that renews its
     * registration every second would cost, so that a flat line near zero reads as near zero; else whatever is above
     * zero.
     */
    private static double leastTop(String figure) {
        return figure.startsWith("scripts per waiter") ? 1 : 1e-9;
    }

    /**
     * The x of the i-th of n sizes: evenly spaced, as the sizes are about 10, 30 and 100 % (S9's 12.5, 37.5 and
     * 100 %) rather than a scale.
     */
    private static int xOf(int x, int i, int n) {
        return x + 20 + (PANEL_WIDTH - 40) * i / Math.max(1, n - 1);
    }

    /** Warden blue, the raw floor (drawn in S9's curve) amber, every other contender grey. */
    private static String color(String contender) {
        return switch (contender) {
            case "warden" -> "#1f6feb";
            case "floor" -> "#bf8700";
            default -> "#9aa4af";
        };
    }

    private static String number(double value) {
        return value == 0 ? "0" : value < 0.001 ? "<0.001" : value >= 100 ? String.format(Locale.ROOT, "%,.0f", value)
                : value >= 1 ? String.format(Locale.ROOT, "%.1f", value)
                : String.format(Locale.ROOT, "%.3f", value);
    }
}
