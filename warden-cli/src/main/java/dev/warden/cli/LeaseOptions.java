package dev.warden.cli;

import dev.warden.LockConfig;
import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --lease}, {@code --grace} and {@code --fair}: how a command that runs another under a lock holds it, for
 * {@code run} (while the command runs) and {@code lead} (while it leads).
 */
final class LeaseOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--lease", paramLabel = "DURATION", defaultValue = "30s", converter = Durations.class,
            description = "the lease, renewed by the watchdog every third of it while the command runs: how "
                    + "long the lock outlives a warden that dies without releasing it; at most 24h, the day Redis "
                    + "keeps a free lock's fencing counter (default: ${DEFAULT-VALUE})")
    Duration lease;

    @Option(names = "--grace", paramLabel = "DURATION", defaultValue = "10s", converter = Durations.class,
            description = "after a lost lease, how long the command has between SIGTERM and SIGKILL, at most "
                    + "24h (default: ${DEFAULT-VALUE})")
    Duration grace;

    @Option(names = "--fair", description = "fair mode: strictly first come first served, even when a holder "
            + "expires without releasing (all users of one lock name must agree)")
    boolean fair;

    /**
     * Checks {@code --lease} and {@code --grace} and applies the lease and fair mode to {@code builder}; a bad value
     * is a usage error naming it.
     *
     * @return {@code builder}
     */
    LockConfig.Builder apply(LockConfig.Builder builder) {
        check();
        return builder.defaultLease(lease).fair(fair);
    }

    /** Checks {@code --lease} and {@code --grace}, before anything connects. */
    void check() {
        Durations.check(spec, "--lease", lease, Durations.MIN_LEASE, Durations.MAX);
        Durations.check(spec, "--grace", grace, Duration.ZERO, Durations.MAX);
    }
}
