package dev.warden.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads durations such as {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}, {@code 0} or ISO-8601 {@code PT10S},
 * and checks a duration option against its range ({@link #check}), naming the option and the value as given.
 */
final class Durations implements ITypeConverter<Duration> {
    /**
     * The longest any duration option may be: the lease (docs/cli.md, "Durations") and every other. A day is the
     * horizon Redis keeps a lock's state for already: a free lock's fencing counter, a semaphore's state, live 24
     * hours past the last lease.
     */
    static final Duration MAX = Duration.ofHours(24);
    /** The shortest lease, as the library takes it. */
    static final Duration MIN_LEASE = Duration.ofMillis(1);

    private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h)?");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    static Duration parse(String value) {
        Matcher m = SIMPLE.matcher(value.trim());
        if (m.matches()) {
            long amount;
            try {
                amount = Long.parseLong(m.group(1));
            } catch (NumberFormatException e) {
                throw tooLarge(value);
            }
            String unit = m.group(2) == null ? (amount == 0 ? "s" : "") : m.group(2);
            try {
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
                        throw new TypeConversionException("'" + value + "' needs a unit: ms, s, m or h (for example "
                                + "10s)");
                }
            } catch (ArithmeticException e) {
                throw tooLarge(value);
            }
        }
        try {
            return Duration.parse(value);
        } catch (DateTimeParseException e) {
            // Duration.parse says "cannot be parsed" for a number that overflows, too: its cause tells them apart.
            if (e.getCause() instanceof ArithmeticException || e.getCause() instanceof NumberFormatException) {
                throw tooLarge(value);
            }
            throw new TypeConversionException("'" + value + "' is not a duration (for example 500ms, 10s, 2m, 1h)");
        }
    }

    private static TypeConversionException tooLarge(String value) {
        return new TypeConversionException("'" + value + "' is too large a number (no duration may exceed "
                + describe(MAX) + ")");
    }

    /**
     * Checks a duration option, before anything connects: it must be from {@code min} to {@code max}. Outside, a
     * usage error names the option and its value as given, such as {@code --lease must be positive: 0s}.
     *
     * @param spec   the command, for the error and the value as given
     * @param option the option's name
     * @param value  its value
     * @param min    the least it may be: zero (not negative), {@link #MIN_LEASE} (positive), or more
     * @param max    the most it may be
     */
    static void check(CommandSpec spec, String option, Duration value, Duration min, Duration max) {
        String problem = null;
        if (value.compareTo(min) < 0) {
            problem = min.isZero() ? "must not be negative"
                    : min.equals(MIN_LEASE) && (value.isZero() || value.isNegative()) ? "must be positive"
                    : "must be at least " + describe(min);
        } else if (value.compareTo(max) > 0) {
            problem = "must be at most " + describe(max);
        }
        if (problem != null) {
            throw new ParameterException(spec.commandLine(), option + " " + problem + ": " + given(spec, option,
                    value));
        }
    }

    /** The option's value as the command line (else its default) gave it. */
    static String given(CommandSpec spec, String option, Duration value) {
        OptionSpec found = spec.findOption(option);
        if (found == null) {
            return format(value);
        }
        List<String> given = found.originalStringValues();
        if (!given.isEmpty()) {
            return given.get(given.size() - 1);
        }
        return found.defaultValue() != null ? found.defaultValue() : format(value);
    }

    static String format(Duration d) {
        return dev.warden.cli.doctor.Finding.duration(d);
    }

    /** A limit for people, in its largest whole unit: 200ms, 30s, 1h, 24h. */
    static String describe(Duration d) {
        if (d.toMillis() % 1000 != 0) {
            return d.toMillis() + "ms";
        }
        long s = d.toSeconds();
        return s % 3600 == 0 && s > 0 ? s / 3600 + "h" : s % 60 == 0 && s > 0 ? s / 60 + "m" : s + "s";
    }
}
