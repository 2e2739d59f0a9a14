package dev.warden.cli.doctor;

import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Runs {@code warden doctor}'s checks over open connections and turns what the server answers into findings. Every
 * command that fails is named in a finding with the server's error; the other checks still run.
 */
public final class DoctorProbe {
    /** The checks, in the report's order. */
    static final List<Check> CHECKS = List.of(new TopologyCheck(), new VersionCheck(), new EvictionCheck(),
            new PersistenceCheck(), new ConfigCheck(), new ReplicationCheck(), new ClockCheck(), new LatencyCheck(),
            new AclCheck());

    private final RedisCommands<String, String> redis;
    private final Supplier<StatefulRedisPubSubConnection<String, String>> pubSub;
    private final DoctorOptions options;
    private final String user;
    private Outcome<String> infoReply;
    private InfoReply info;
    private Config config;
    private Timing timing;

    /**
     * @param redis   commands on the server under test
     * @param pubSub  opens a pub/sub connection to the same server, for the subscribe trial
     * @param options what the user needs
     * @param user    who the connection logged in as, as far as the URI says: named where {@code ACL WHOAMI} is
     *                refused
     */
    public DoctorProbe(StatefulRedisConnection<String, String> redis,
                       Supplier<StatefulRedisPubSubConnection<String, String>> pubSub, DoctorOptions options,
                       String user) {
        this.redis = redis.sync();
        this.pubSub = pubSub;
        this.options = options;
        this.user = user;
    }

    /** The answer to one command: its value, or the server's (or the client's) error. */
    record Outcome<T>(T value, String error) {
        boolean ok() {
            return error == null;
        }

        Optional<String> failure() {
            return Optional.ofNullable(error);
        }
    }

    static <T> Outcome<T> attempt(Supplier<T> command) {
        try {
            return new Outcome<>(command.get(), null);
        } catch (RedisException e) {
            String message = e.getMessage() == null ? e.toString() : e.getMessage();
            return new Outcome<>(null, message.lines().findFirst().orElse(message));
        }
    }

    /** @return the report: the server's identity and every finding, in a fixed order */
    public DoctorReport run() {
        infoReply = attempt(redis::info);
        info = InfoReply.parse(infoReply.ok() ? infoReply.value() : "");
        List<Finding> findings = new ArrayList<>();
        for (Check check : CHECKS) {
            if (mode().equals("sentinel") && !check.onSentinel()) {
                for (String code : check.codes()) {
                    findings.add(Finding.unchecked(code, "the server is a Sentinel", "the checks apply to the "
                            + "data servers", "run warden doctor with the redis-sentinel:// URI"));
                }
            } else {
                findings.addAll(check.run(this));
            }
        }
        return new DoctorReport(options, version(), mode(), role(), findings);
    }

    RedisCommands<String, String> redis() {
        return redis;
    }

    Supplier<StatefulRedisPubSubConnection<String, String>> pubSub() {
        return pubSub;
    }

    DoctorOptions options() {
        return options;
    }

    /** @return who the connection logged in as, as far as the URI says */
    String user() {
        return user;
    }

    /** @return {@code INFO}'s answer (empty if it failed), read once for every check */
    InfoReply info() {
        return info;
    }

    /** @return {@code INFO}'s answer as it came, or its failure */
    Outcome<String> infoReply() {
        return infoReply;
    }

    /** @return why the checks that need {@code INFO} could not run */
    String infoFailure() {
        return "INFO failed: " + infoReply.error();
    }

    String version() {
        return info.get("redis_version").orElse("unknown");
    }

    String mode() {
        return info.get("redis_mode").orElse("unknown");
    }

    String role() {
        return info.get("role").orElse("unknown");
    }

    boolean cluster() {
        return mode().equals("cluster");
    }

    /** What {@code CONFIG GET} answered; it stops at the first failure, which the other parameters would repeat. */
    static final class Config {
        Optional<String> policy = Optional.empty();
        Optional<Long> maxmemory = Optional.empty();
        Optional<String> save = Optional.empty();
        Optional<String> appendonly = Optional.empty();
        Optional<String> appendfsync = Optional.empty();
        Optional<String> failure = Optional.empty();
    }

    /** @return the configuration, read once for every check that needs it */
    Config config() {
        if (config == null) {
            config = readConfig();
        }
        return config;
    }

    private Config readConfig() {
        Config read = new Config();
        for (String parameter : List.of("maxmemory-policy", "maxmemory", "save", "appendonly", "appendfsync")) {
            // One parameter per call: Redis 6.2 takes only one.
            Outcome<Map<String, String>> reply = attempt(() -> redis.configGet(parameter));
            if (!reply.ok()) {
                read.failure = reply.failure();
                return read;
            }
            Optional<String> value = Optional.ofNullable(reply.value().get(parameter));
            switch (parameter) {
                case "maxmemory-policy" -> read.policy = value;
                case "maxmemory" -> read.maxmemory = value.map(Long::parseLong);
                case "save" -> read.save = value;
                case "appendonly" -> read.appendonly = value;
                default -> read.appendfsync = value;
            }
        }
        return read;
    }

    /**
     * {@code TIME}'s round trips, for the clock and the latency: Warden's scripts call it, so a user that may take
     * locks may send it (docs/acl.md's rule grants it, and not PING).
     *
     * @param samples the clock samples, each with the server's time and this machine's around it
     * @param trips   the round trips (ns)
     * @param failure TIME's error, if it was refused (then nothing was measured)
     */
    record Timing(List<ClockCheck.Sample> samples, long[] trips, Optional<String> failure) {
    }

    /** @return the {@code TIME} samples, measured once for the clock and the latency checks */
    Timing timing() {
        if (timing == null) {
            timing = measureTime();
        }
        return timing;
    }

    private Timing measureTime() {
        List<ClockCheck.Sample> clock = new ArrayList<>();
        long[] trips = new long[options.samples()];
        for (int i = 0; i < options.samples(); i++) {
            long start = System.nanoTime();
            long sent = micros(Instant.now());
            Outcome<List<String>> time = attempt(redis::time);
            long received = micros(Instant.now());
            trips[i] = System.nanoTime() - start;
            if (!time.ok()) {
                return new Timing(List.of(), new long[0], time.failure());
            }
            long server = Long.parseLong(time.value().get(0)) * 1_000_000 + Long.parseLong(time.value().get(1));
            clock.add(new ClockCheck.Sample(sent, server, received));
        }
        return new Timing(clock, trips, Optional.empty());
    }

    private static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1000;
    }
}
