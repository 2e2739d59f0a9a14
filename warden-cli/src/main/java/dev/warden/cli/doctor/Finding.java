package dev.warden.cli.doctor;

import java.time.Duration;
import java.util.Objects;

/**
 * One result of {@code warden doctor}: how it rates one aspect of the server for Warden's locks, what it saw, what
 * that means for locks, and what to do.
 *
 * @param severity how it rates
 * @param code     a stable name for scripts, such as {@code EVICTION}
 * @param observed what the doctor read from the server, in one line
 * @param meaning  what it means for locks
 * @param action   what to do; empty when nothing is to be done
 */
public record Finding(Severity severity, String code, String observed, String meaning, String action) {

    /** How a finding rates. */
    public enum Severity {
        /** Safe for locks. */
        OK,
        /** Locks keep their guarantees, but something deserves attention. */
        WARN,
        /** Locks can be lost or held twice, or do not work at all: fix before relying on them. */
        UNSAFE,
        /** Could not be checked (the command was refused, or does not apply); the reason is given. */
        UNCHECKED
    }

    public Finding {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(observed, "observed");
        Objects.requireNonNull(meaning, "meaning");
        Objects.requireNonNull(action, "action");
    }

    static Finding ok(String code, String observed, String meaning) {
        return new Finding(Severity.OK, code, observed, meaning, "");
    }

    static Finding warn(String code, String observed, String meaning, String action) {
        return new Finding(Severity.WARN, code, observed, meaning, action);
    }

    static Finding unsafe(String code, String observed, String meaning, String action) {
        return new Finding(Severity.UNSAFE, code, observed, meaning, action);
    }

    static Finding unchecked(String code, String why, String meaning, String action) {
        return new Finding(Severity.UNCHECKED, code, why, meaning, action);
    }

    /**
     * A duration as findings and the command line write it: {@code 0s}, {@code 250ms}, {@code 3s}.
     *
     * @param d the duration
     * @return its text
     */
    public static String duration(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.toMillis() % 1000 != 0) {
            return d.toMillis() + "ms";
        }
        return d.toSeconds() + "s";
    }
}
