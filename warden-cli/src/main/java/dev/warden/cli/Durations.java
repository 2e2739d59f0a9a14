package dev.warden.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads durations such as {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}, {@code 0} or ISO-8601 {@code PT10S}. */
final class Durations implements ITypeConverter<Duration> {
    private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h)?");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    static Duration parse(String value) {
        Matcher m = SIMPLE.matcher(value.trim());
        if (m.matches()) {
            long amount = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? (amount == 0 ? "s" : "") : m.group(2);
            switch (unit) {
                case "ms":
                    return Duration.ofMillis(amount);
                case "s":
                    return Duration.ofSeconds(amount);
                case "m":
                    return Duration.ofMinutes(amount);
                case "h":
                    return Duration.ofHours(amount);
                default:
                    throw new TypeConversionException("'" + value + "' needs a unit: ms, s, m or h (for example 10s)");
            }
        }
        try {
            return Duration.parse(value);
        } catch (DateTimeParseException e) {
            throw new TypeConversionException("'" + value + "' is not a duration (for example 500ms, 10s, 2m, 1h)");
        }
    }

    static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.toMillis() % 1000 != 0) {
            return d.toMillis() + "ms";
        }
        return d.toSeconds() + "s";
    }
}
