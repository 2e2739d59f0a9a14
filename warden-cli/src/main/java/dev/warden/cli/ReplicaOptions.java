package dev.warden.cli;

import dev.warden.LockConfig;
import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --replica-acks} and {@code --replica-ack-timeout}: what a grant and a renewal must wait for. Only
 * {@code run} and {@code lead} take a lock, so only they list them; {@code doctor} has a {@code --replica-acks} of its
 * own.
 */
final class ReplicaOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--replica-acks", paramLabel = "K", defaultValue = "0", description = "every grant and renewal "
            + "must be acknowledged by K replicas (Redis WAIT), or the acquire fails (default: ${DEFAULT-VALUE})")
    int replicaAcks;

    @Option(names = "--replica-ack-timeout", paramLabel = "DURATION", defaultValue = "500ms",
            converter = Durations.class, description = "how long to wait for the replicas' acknowledgements; "
            + "shorter than --timeout (default: ${DEFAULT-VALUE})")
    Duration replicaAckTimeout;

    /**
     * Checks the options and applies them to {@code builder}; a bad value is a usage error naming it.
     *
     * @param builder the client configuration
     * @param timeout the command timeout, which the acknowledgements' wait must be shorter than
     * @return {@code builder}
     */
    LockConfig.Builder apply(LockConfig.Builder builder, Duration timeout) {
        if (replicaAcks < 0) {
            throw new ParameterException(spec.commandLine(), "--replica-acks must not be negative: " + replicaAcks);
        }
        Durations.check(spec, "--replica-ack-timeout", replicaAckTimeout, Durations.MIN_LEASE, Durations.MAX);
        if (replicaAcks > 0 && replicaAckTimeout.compareTo(timeout) >= 0) {
            throw new ParameterException(spec.commandLine(), "--replica-ack-timeout must be shorter than --timeout ("
                    + Durations.given(spec, "--timeout", timeout) + "): "
                    + Durations.given(spec, "--replica-ack-timeout", replicaAckTimeout));
        }
        if (replicaAcks != 0) {
            builder.replicaAcks(replicaAcks, replicaAckTimeout);
        }
        return builder;
    }
}
