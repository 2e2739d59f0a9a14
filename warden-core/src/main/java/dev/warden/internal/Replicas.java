package dev.warden.internal;

import java.time.Duration;

/**
 * A replica policy: how many replicas must acknowledge (Redis {@code WAIT}) a grant or renewal, and how long to
 * wait for them.
 */
record Replicas(int count, long timeoutMillis) {
    static final Replicas NONE = new Replicas(0, 0);

    static Replicas of(int count, Duration timeout) {
        return count == 0 ? NONE : new Replicas(count, timeout.toMillis());
    }

    boolean required() {
        return count > 0;
    }
}
