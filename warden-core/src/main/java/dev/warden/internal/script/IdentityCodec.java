package dev.warden.internal.script;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The text of a client's identity record ({@code IdentityRecord}): a line {@code <field>=<value>} per field. In
 * values, a backslash is written {@code \\} and a line break {@code \n}, so that any thread name fits; fields are
 * Warden's own ({@code name}, {@code host}, {@code pid}, {@code t:<thread id>}) and hold neither {@code =} nor a line
 * break.
 */
public final class IdentityCodec {
    private IdentityCodec() {
    }

    public static String encode(Map<String, String> fields) {
        StringBuilder text = new StringBuilder();
        fields.forEach((field, value) -> {
            text.append(field).append('=');
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c == '\\') {
                    text.append("\\\\");
                } else if (c == '\n') {
                    text.append("\\n");
                } else {
                    text.append(c);
                }
            }
            text.append('\n');
        });
        return text.toString();
    }

    /** @return the fields of a record; lines without a field are passed over; empty for no record (null) */
    static Map<String, String> decode(String text) {
        Map<String, String> fields = new LinkedHashMap<>();
        if (text == null) {
            return fields;
        }
        for (String line : text.split("\n")) {
            int equals = line.indexOf('=');
            if (equals <= 0) {
                continue;
            }
            StringBuilder value = new StringBuilder();
            for (int i = equals + 1; i < line.length(); i++) {
                char c = line.charAt(i);
                if (c == '\\' && i + 1 < line.length()) {
                    char next = line.charAt(++i);
                    value.append(next == 'n' ? '\n' : next);
                } else {
                    value.append(c);
                }
            }
            fields.put(line.substring(0, equals), value.toString());
        }
        return fields;
    }
}
