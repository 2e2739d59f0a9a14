package dev.warden.spring;

import dev.warden.LockClient;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code warden} health of Spring Boot's Actuator: up when Redis answers a read of a lock's state within the
 * command timeout, down with the failure otherwise; its details say how many leases the client lost recently and
 * the last of them (a lost lease is not a health failure of Redis, but a sign of pauses or of a Redis that loses
 * data).
 */
final class WardenHealthIndicator extends AbstractHealthIndicator {
    /** The lock whose state the check reads: never written, so the check leaves no key behind. */
    static final String PROBE = "warden-health-probe";

    private final LockClient client;
    private final RecentLosses losses;

    WardenHealthIndicator(LockClient client, RecentLosses losses) {
        super("Warden health check failed");
        this.client = client;
        this.losses = losses;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        client.lock(PROBE).inspect();
        builder.up().withDetail("leasesLostRecently", losses.count())
                .withDetail("recently", losses.window().toString());
        RecentLosses.Lost last = losses.last();
        if (last != null) {
            builder.withDetail("lastLoss", last);
        }
    }
}
