package dev.warden.internal.base;

import java.time.Duration;
import java.util.Objects;

/** Argument checks whose messages name the argument and the value. Internal; not part of the API. */
public final class Require {
    private Require() {
    }

    /**
     * Throws {@link IllegalArgumentException} with a formatted message unless {@code condition} holds.
     *
     * @param condition the condition
     * @param format    a {@link String#format} pattern
     * @param args      its arguments
     */
    public static void argument(boolean condition, String format, Object... args) {
        if (!condition) {
            throw new IllegalArgumentException(String.format(format, args));
        }
    }

    /**
     * Checks a lease-like duration: not null, at least one millisecond.
     *
     * @param value the duration
     * @param name  the argument's name for messages
     * @return {@code value}
     */
    public static Duration lease(Duration value, String name) {
        Objects.requireNonNull(value, name);
        argument(!value.isNegative() && !value.isZero(), "%s must be positive: %s", name, value);
        argument(value.toMillis() >= 1, "%s must be at least 1ms: %s", name, value);
        return value;
    }

    /**
     * Checks a wait: not null, not negative.
     *
     * @param value the duration
     * @param name  the argument's name for messages
     * @return {@code value}
     */
    public static Duration wait(Duration value, String name) {
        Objects.requireNonNull(value, name);
        argument(!value.isNegative(), "%s must not be negative: %s", name, value);
        return value;
    }

    /**
     * Checks a lock name: not null, not blank, at most {@code max} characters.
     *
     * @param name the name
     * @param max  the longest accepted length
     * @return {@code name}
     */
    public static String lockName(String name, int max) {
        Objects.requireNonNull(name, "name");
        argument(!name.isBlank(), "name must not be blank: '%s'", name);
        argument(name.length() <= max, "name must be at most %d characters: %d", max, name.length());
        return name;
    }

    /**
     * Checks a replica policy of one lock: a count of at least 0, and a timeout shorter than the command timeout.
     *
     * @param replicas       how many replicas must acknowledge
     * @param timeout        how long to wait for them
     * @param commandTimeout the client's command timeout
     */
    public static void replicaAcks(int replicas, Duration timeout, Duration commandTimeout) {
        argument(replicas >= 0, "replicas must not be negative: %d", replicas);
        lease(timeout, "timeout");
        argument(timeout.compareTo(commandTimeout) < 0,
                "timeout must be shorter than the command timeout (%s): %s", commandTimeout, timeout);
    }
}
