package dev.warden.cli.doctor;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The fields of an {@code INFO} reply ({@code name:value} lines; section headers and blank lines skipped). */
final class InfoReply {
    private final Map<String, String> fields;

    private InfoReply(Map<String, String> fields) {
        this.fields = fields;
    }

    /**
     * @param text an INFO reply, with any line endings
     * @return its fields
     */
    static InfoReply parse(String text) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : text.split("\\R")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                fields.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        return new InfoReply(fields);
    }

    /** @return the value of a field, if the reply has it */
    Optional<String> get(String name) {
        return Optional.ofNullable(fields.get(name));
    }

    /** @return the value of a numeric field, or {@code fallback} if absent or not a number */
    long number(String name, long fallback) {
        String value = fields.get(name);
        if (value == null) {
            return fallback;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
