package dev.warden.cli;

import dev.warden.LockConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import picocli.CommandLine.Option;

/**
 * The options every command takes: which Redis, which key prefix, how long a Redis command may take, and
 * {@code --help}, which prints the command's own help (before its required arguments are checked).
 */
final class CommonOptions {
    @Option(names = "--redis", paramLabel = "URI", defaultValue = "${env:WARDEN_REDIS:-redis://127.0.0.1:6379}",
            description = "Redis server URI (default: $WARDEN_REDIS, else ${DEFAULT-VALUE}); "
                    + "redis:// or rediss://, user:password@, /db")
    String redis;

    @Option(names = "--prefix", paramLabel = "PREFIX", defaultValue = LockConfig.DEFAULT_KEY_PREFIX,
            description = "key prefix (default: ${DEFAULT-VALUE})")
    String prefix;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "3s", converter = Durations.class,
            description = "how long one Redis command may take (default: ${DEFAULT-VALUE})")
    Duration timeout;

    @Option(names = {"-v", "--verbose"}, description = "show stack traces and library warnings")
    boolean verbose;

    @Option(names = "--cluster", description = "--redis names a Redis Cluster: one or more seed URIs, comma-separated")
    boolean cluster;

    @Option(names = "--quorum", description = "--redis names three or more independent servers, comma-separated, "
            + "for a quorum lock (Redlock)")
    boolean quorum;

    @Option(names = "--replica-acks", paramLabel = "K", defaultValue = "0", description = "every grant and renewal "
            + "must be acknowledged by K replicas (Redis WAIT), or the acquire fails (default: ${DEFAULT-VALUE})")
    int replicaAcks;

    @Option(names = "--replica-ack-timeout", paramLabel = "DURATION", defaultValue = "500ms",
            converter = Durations.class, description = "how long to wait for the replicas' acknowledgements; "
            + "shorter than --timeout (default: ${DEFAULT-VALUE})")
    Duration replicaAckTimeout;

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
     * Builds the client configuration: {@code --redis} as one server (or a Sentinel URI), the seeds of a cluster
     * ({@code --cluster}), or a quorum's servers ({@code --quorum}); a bad value throws
     * {@link IllegalArgumentException} naming it.
     */
    LockConfig.Builder config() {
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
        if (replicaAcks != 0) {
            builder.replicaAcks(replicaAcks, replicaAckTimeout);
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
