package dev.warden.internal.wire;

import java.time.Duration;

/**
 * A replica policy: how many replicas must acknowledge (Redis {@code WAIT}) a grant or renewal, and how long to
 * wait for them.
 */
public record Replicas(int count, long timeoutMillis) {
    public static final Replicas NONE = new Replicas(0, 0);

    public static Replicas of(int count, Duration timeout) {
        return count == 0 ? NONE : new Replicas(count, timeout.toMillis());
    }

    public boolean required() {
        return count > 0;
    }
}
