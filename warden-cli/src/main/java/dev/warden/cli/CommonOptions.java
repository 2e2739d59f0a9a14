package dev.warden.cli;

import dev.warden.LockConfig;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

    private static final Pattern USER_INFO = Pattern.compile("^[a-zA-Z0-9+.-]+://([^@/]*)@");

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
     * The options that say how to connect and authenticate, as arguments for a child process of the same command
     * line (the demo's workers): the password file and the TLS files, as absolute paths. {@code WARDEN_PASSWORD}
     * reaches the child through its environment.
     */
    List<String> credentialArguments() {
        List<String> arguments = new ArrayList<>();
        addPath(arguments, "--password-file", passwordFile);
        addPath(arguments, "--tls-ca", tlsCa);
        addPath(arguments, "--tls-cert", tlsCert);
        addPath(arguments, "--tls-key", tlsKey);
        return arguments;
    }

    private static void addPath(List<String> arguments, String option, Path file) {
        if (file != null) {
            arguments.add(option);
            arguments.add(file.toAbsolutePath().toString());
        }
    }

    /**
     * Checks the options that need no connection ({@code --timeout}, the TLS client files as a pair); a bad value is
     * a usage error naming it.
     */
    void check() {
        Durations.check(spec, "--timeout", timeout, Durations.MIN_LEASE, Durations.MAX);
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new IllegalArgumentException("--tls-cert and --tls-key go together: " + tlsCert + ", " + tlsKey);
        }
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
        if (tlsCert != null) {
            builder.tlsClientCertificate(tlsCert, tlsKey);
        }
        return builder;
    }

    /**
     * {@code uri} with this command line's password (where the URI has none) and TLS files, for a plain Lettuce
     * connection beside the lock client's (the demo's prize pool).
     *
     * @return the URI and the client options to connect with
     */
    Map.Entry<RedisURI, ClientOptions> plainConnection(String uri) {
        check();
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(timeout);
        char[] password = password();
        if (password != null) {
            // As the lock client does: the URI's user alone takes it; a URI with user:password keeps its own.
            Matcher userInfo = USER_INFO.matcher(uri);
            if (!userInfo.find()) {
                redisUri.setAuthentication(password);
            } else if (userInfo.group(1).indexOf(':') < 0) {
                redisUri.setAuthentication(URLDecoder.decode(userInfo.group(1), StandardCharsets.UTF_8), password);
            }
        }
        SslOptions.Builder ssl = SslOptions.builder();
        if (tlsCa != null) {
            ssl.trustManager(tlsCa.toFile());
        }
        if (tlsCert != null) {
            ssl.keyManager(tlsCert.toFile(), tlsKey.toFile(), null);
        }
        return Map.entry(redisUri, ClientOptions.builder().sslOptions(ssl.build()).build());
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
