package dev.warden.cli;

import dev.warden.LockConfig;
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

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this command's help and exit")
    boolean help;

    /** Builds the client configuration; a bad value throws {@link IllegalArgumentException} naming it. */
    LockConfig.Builder config() {
        return settings().redisUri(redis);
    }

    /** As {@link #config()}, with {@code --redis} as one or more seeds of a Redis Cluster, comma-separated. */
    LockConfig.Builder clusterConfig() {
        return settings().cluster(Arrays.stream(redis.split(",")).map(String::trim).toArray(String[]::new));
    }

    private LockConfig.Builder settings() {
        return LockConfig.builder().keyPrefix(prefix).commandTimeout(timeout).clientName("warden-cli");
    }
}
