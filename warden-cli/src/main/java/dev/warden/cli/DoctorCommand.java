package dev.warden.cli;

import dev.warden.cli.doctor.DoctorJson;
import dev.warden.cli.doctor.DoctorOptions;
import dev.warden.cli.doctor.DoctorProbe;
import dev.warden.cli.doctor.DoctorReport;
import dev.warden.cli.doctor.DoctorText;
import dev.warden.cli.doctor.Durability;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code warden doctor}: reads the server's configuration, role and version, and reports per finding what it means
 * for locks and what to do. Exits with {@link ExitCodes#UNSAFE_CONFIGURATION} when a finding is unsafe.
 */
@Command(name = "doctor", description = {"Check a Redis server for what makes locks unsafe: eviction, persistence, "
        + "replicas without acknowledgements, topology, version, clocks, ACL rights, latency. Exit code 0 when "
        + "nothing unsafe was found, 78 otherwise, 69 when Redis cannot be reached."})
final class DoctorCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Option(names = "--replica-acks", paramLabel = "K", defaultValue = "0", description = "the replica "
            + "acknowledgements your clients require (LockConfig.replicaAcks): what the replicas found are checked "
            + "against (default: ${DEFAULT-VALUE})")
    int replicaAcks;

    /** Not listed: the doctor checks one server, and finds a cluster by itself; given, they say so. */
    @Option(names = "--cluster", hidden = true)
    boolean cluster;

    @Option(names = "--quorum", hidden = true)
    boolean quorum;

    @Option(names = "--durability", paramLabel = "NEED", defaultValue = "restart",
            converter = DurabilityConverter.class,
            description = "what locks must survive: none (a restart may lose them), restart (a restart or crash of "
                    + "the Redis process; needs AOF), fsync (a power loss; needs appendfsync always). "
                    + "Default: ${DEFAULT-VALUE}")
    Durability durability;


    @Option(names = "--max-clock-offset", paramLabel = "DURATION", defaultValue = "1s", converter = Durations.class,
            description = "warn when the server's clock differs from this machine's by more, at most 24h "
                    + "(default: ${DEFAULT-VALUE})")
    Duration maxClockOffset;

    @Option(names = "--samples", paramLabel = "N", defaultValue = "5",
            description = "TIME round trips to measure (default: ${DEFAULT-VALUE})")
    int samples;

    @Option(names = "--json", description = "print the report as JSON")
    boolean json;

    @Spec
    CommandSpec spec;

    /** Reads {@code --durability}. */
    static final class DurabilityConverter implements picocli.CommandLine.ITypeConverter<Durability> {
        @Override
        public Durability convert(String value) {
            return Durability.parse(value);
        }
    }

    @Override
    public Integer call() {
        if (replicaAcks < 0) {
            throw new IllegalArgumentException("--replica-acks must not be negative: " + replicaAcks);
        }
        if (cluster || quorum) {
            throw new IllegalArgumentException("doctor checks one server at a time (it finds a cluster's topology "
                    + "itself): --cluster and --quorum do not apply");
        }
        if (samples < 1 || samples > 1000) {
            throw new IllegalArgumentException("--samples must be from 1 to 1000: " + samples);
        }
        Durations.check(spec, "--max-clock-offset", maxClockOffset, Duration.ZERO, Durations.MAX);
        // Validates the URI, prefix and timeout as every other command does (IllegalArgumentException: usage).
        var config = common.config(null).build();
        // With --password-file (or $WARDEN_PASSWORD) and the TLS files, as every command connects.
        Map.Entry<RedisURI, ClientOptions> plain = common.plainConnection(common.redis);
        RedisURI uri = plain.getKey();
        DoctorOptions options = new DoctorOptions(config.redisUriForDisplay(),
                Optional.ofNullable(uri.getSentinelMasterId()), common.prefix, common.timeout, durability,
                replicaAcks, maxClockOffset, samples);
        RedisClient client = RedisClient.create();
        client.setOptions(ClientOptions.builder()
                .autoReconnect(false)
                .timeoutOptions(TimeoutOptions.enabled(common.timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(common.timeout).build())
                .sslOptions(plain.getValue().getSslOptions())
                .build());
        try {
            StatefulRedisConnection<String, String> connection;
            try {
                connection = client.connect(StringCodec.UTF8, uri);
            } catch (RedisException e) {
                var err = spec.commandLine().getErr();
                err.println("warden: cannot connect to " + options.target() + ": " + message(e));
                if (common.verbose) {
                    e.printStackTrace(err);
                }
                err.flush();
                return ExitCodes.REDIS_UNAVAILABLE;
            }
            DoctorReport report;
            try (connection) {
                // Who the doctor is connected as, where ACL WHOAMI is refused (as by docs/acl.md's rule): the
                // URI's user, else the one a password alone (or nothing) logs in as.
                String user = user(uri);
                report = new DoctorProbe(connection, () -> client.connectPubSub(StringCodec.UTF8, uri), options,
                        user).run();
            }
            var out = spec.commandLine().getOut();
            out.print(json ? DoctorJson.render(report) : DoctorText.render(report));
            out.flush();
            return report.exitCode();
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** The URI's user, else {@code default}: whom a password alone, or no credentials, log in as. */
    private static String user(RedisURI uri) {
        try {
            RedisCredentials credentials = uri.getCredentialsProvider().resolveCredentials()
                    .block(Duration.ofSeconds(1));
            return credentials != null && credentials.hasUsername() ? credentials.getUsername() : "default";
        } catch (RuntimeException e) {
            return "default";
        }
    }

    private static String message(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        String top = e.getMessage() == null ? e.toString() : e.getMessage();
        return cause == e ? top : top + " (" + cause.getMessage() + ")";
    }
}
