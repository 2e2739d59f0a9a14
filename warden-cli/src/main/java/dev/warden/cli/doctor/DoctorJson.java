package dev.warden.cli.doctor;

import java.util.Locale;
import java.util.Map;

/** Renders a {@link DoctorReport} as one JSON object, for scripts; see docs/doctor.md for its fields. */
public final class DoctorJson {
    private DoctorJson() {
    }

    public static String render(DoctorReport report) {
        DoctorOptions options = report.options();
        StringBuilder json = new StringBuilder("{\n");
        json.append("  \"target\": ").append(string(options.target())).append(",\n");
        json.append("  \"server\": {\"version\": ").append(string(report.version())).append(", \"mode\": ")
                .append(string(report.mode())).append(", \"role\": ").append(string(report.role())).append("},\n");
        json.append("  \"options\": {\"durability\": ").append(string(options.durability().toString()))
                .append(", \"replicaAcks\": ").append(options.replicaAcks())
                .append(", \"prefix\": ").append(string(options.prefix()))
                .append(", \"maxClockOffsetMillis\": ").append(options.maxClockOffset().toMillis())
                .append(", \"samples\": ").append(options.samples()).append("},\n");
        json.append("  \"findings\": [");
        String separator = "\n";
        for (Finding f : report.findings()) {
            json.append(separator).append("    {\"severity\": ").append(string(f.severity().name()))
                    .append(", \"code\": ").append(string(f.code()))
                    .append(", \"observed\": ").append(string(f.observed()))
                    .append(", \"meaning\": ").append(string(f.meaning()))
                    .append(", \"action\": ").append(string(f.action())).append('}');
            separator = ",\n";
        }
        json.append("\n  ],\n  \"counts\": {");
        separator = "";
        for (Map.Entry<Finding.Severity, Integer> count : report.counts().entrySet()) {
            json.append(separator).append(string(count.getKey().name())).append(": ").append(count.getValue());
            separator = ", ";
        }
        json.append("},\n  \"exitCode\": ").append(report.exitCode()).append("\n}\n");
        return json.toString();
    }

    /** A JSON string literal: quotes, backslashes and control characters escaped. */
    public static String string(String value) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
