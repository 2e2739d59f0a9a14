package dev.warden.cli;

import dev.warden.LockConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options every command takes: which Redis, which key prefix, how long a Redis command may take, and
 * {@code --help}, which prints the command's own help (before its required arguments are checked). What only some
 * commands use is in {@link TopologyOptions} and {@link ReplicaOptions}, so that each command lists only what does
 * something for it.
 */
final class CommonOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--redis", paramLabel = "URI", defaultValue = "${env:WARDEN_REDIS:-redis://127.0.0.1:6379}",
            description = "Redis server URI (default: $WARDEN_REDIS, else ${DEFAULT-VALUE}); "
                    + "redis:// or rediss://, user:password@, /db")
    String redis;

    @Option(names = "--prefix", paramLabel = "PREFIX", defaultValue = LockConfig.DEFAULT_KEY_PREFIX,
            description = "key prefix (default: ${DEFAULT-VALUE})")
    String prefix;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "3s", converter = Durations.class,
            description = "how long one Redis command may take, at most 24h (default: ${DEFAULT-VALUE})")
    Duration timeout;

    @Option(names = {"-v", "--verbose"}, description = "show stack traces and library warnings")
    boolean verbose;

    @Option(names = "--password-file", paramLabel = "FILE", description = "read the password from the first line "
            + "of this file (else $WARDEN_PASSWORD), for servers whose URI has none; keeps it off the command line")
    Path passwordFile;

    @Option(names = "--tls-ca", paramLabel = "FILE", description = "trust the CA certificates in this PEM file for "
            + "rediss:// servers instead of the JVM's trust store")
    Path tlsCa;

    @Option(names = "--tls-cert", paramLabel = "FILE", description = "client certificate chain (PEM) for mutual TLS; "
            + "needs --tls-key")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "client private key (PEM, PKCS#8, unencrypted) "
            + "for mutual TLS; needs --tls-cert")
    Path tlsKey;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this command's help and exit")
    boolean help;

    /**
     * Checks the options that need no connection ({@code --timeout}); a bad value is a usage error naming it.
     */
    void check() {
        Durations.check(spec, "--timeout", timeout, Durations.MIN_LEASE, Durations.MAX);
    }

    /**
     * Builds the client configuration for {@code --redis} as one server (or a Sentinel URI), the seeds of a cluster
     * ({@code --cluster}), or a quorum's servers ({@code --quorum}); a bad value throws a usage error naming it.
     *
     * @param topology the command's {@code --cluster} and {@code --quorum}, or null where it has none
     */
    LockConfig.Builder config(TopologyOptions topology) {
        check();
        boolean cluster = topology != null && topology.cluster;
        boolean quorum = topology != null && topology.quorum;
        if (cluster && quorum) {
            throw new IllegalArgumentException("--cluster and --quorum exclude each other");
        }
        String[] uris = Arrays.stream(redis.split(",")).map(String::trim).toArray(String[]::new);
        LockConfig.Builder builder = settings();
        if (cluster) {
            builder.cluster(uris);
        } else if (quorum) {
            builder.quorum(uris);
        } else {
            builder.redisUri(redis);
        }
        return builder;
    }

    private LockConfig.Builder settings() {
        LockConfig.Builder builder = LockConfig.builder().keyPrefix(prefix).commandTimeout(timeout)
                .clientName("warden-cli");
        char[] password = password();
        if (password != null) {
            builder.password(password);
        }
        if (tlsCa != null) {
            builder.tlsTrustedCertificates(tlsCa);
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new IllegalArgumentException("--tls-cert and --tls-key go together: " + tlsCert + ", " + tlsKey);
        }
        if (tlsCert != null) {
            builder.tlsClientCertificate(tlsCert, tlsKey);
        }
        return builder;
    }

    /** The password from {@code --password-file}, else {@code $WARDEN_PASSWORD}, else null. */
    private char[] password() {
        if (passwordFile != null) {
            try {
                String first = Files.readAllLines(passwordFile).stream().findFirst().orElse("").strip();
                if (first.isEmpty()) {
                    throw new IllegalArgumentException("--password-file has no password on its first line: "
                            + passwordFile);
                }
                return first.toCharArray();
            } catch (IOException e) {
                throw new IllegalArgumentException("--password-file cannot be read: " + passwordFile + " ("
                        + e.getMessage() + ")", e);
            }
        }
        String env = System.getenv("WARDEN_PASSWORD");
        return env == null || env.isEmpty() ? null : env.toCharArray();
    }
}
