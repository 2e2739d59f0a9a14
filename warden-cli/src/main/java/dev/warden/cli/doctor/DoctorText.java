package dev.warden.cli.doctor;

import java.util.Locale;
import java.util.Map;

/** Renders a {@link DoctorReport} for people: one block per finding, wrapped to 100 columns, then a summary. */
public final class DoctorText {
    private static final int WIDTH = 100;
    private static final String INDENT = " ".repeat(22);

    private DoctorText() {
    }

    public static String render(DoctorReport report) {
        StringBuilder out = new StringBuilder();
        DoctorOptions options = report.options();
        out.append("warden doctor: ").append(options.target()).append(" (Redis ").append(report.version())
                .append(", ").append(report.mode()).append(' ').append(report.role()).append(")\n");
        out.append("checked against: durability ").append(options.durability()).append(", replica acks ")
                .append(options.replicaAcks()).append(", prefix '").append(options.prefix()).append("'\n\n");
        for (Finding finding : report.findings()) {
            out.append(String.format(Locale.ROOT, "%-9s %-11s ", finding.severity(), finding.code()));
            wrap(out, finding.observed(), "");
            wrap(out.append(INDENT), finding.meaning(), "means: ");
            if (!finding.action().isEmpty()) {
                wrap(out.append(INDENT), finding.action(), "do:    ");
            }
        }
        Map<Finding.Severity, Integer> counts = report.counts();
        out.append(String.format(Locale.ROOT, "%n%d unsafe, %d warnings, %d unchecked, %d ok: exit code %d%s%n",
                counts.get(Finding.Severity.UNSAFE), counts.get(Finding.Severity.WARN),
                counts.get(Finding.Severity.UNCHECKED), counts.get(Finding.Severity.OK), report.exitCode(),
                report.unsafe() ? " (unsafe configuration)" : ""));
        return out.toString();
    }

    /** Appends {@code label + text}, wrapped at word boundaries, continuation lines under the text. */
    private static void wrap(StringBuilder out, String text, String label) {
        String hanging = INDENT + " ".repeat(label.length());
        int column = INDENT.length() + label.length();
        out.append(label);
        boolean first = true;
        for (String word : text.split(" ")) {
            if (!first && column + 1 + word.length() > WIDTH) {
                out.append('\n').append(hanging);
                column = hanging.length();
            } else if (!first) {
                out.append(' ');
                column++;
            }
            out.append(word);
            column += word.length();
            first = false;
        }
        out.append('\n');
    }
}
