package dev.warden.cli;

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
final class DoctorProbe {
    /** Every command that the lock scripts call, tried in one script on a scratch lock; ARGV[1] is the publish. */
    static final String TRIAL_SCRIPT = String.join("\n",
            "if redis.replicate_commands then redis.replicate_commands() end",
            "local out = {}",
            "local function try(name, ...)",
            "  local reply = redis.pcall(...)",
            "  if type(reply) == 'table' and reply.err then",
            "    out[#out + 1] = name .. '\\n' .. reply.err",
            "  else",
            "    out[#out + 1] = name .. '\\n'",
            "  end",
            "end",
            "try('GET', 'GET', KEYS[1])",
            "try('SET PX', 'SET', KEYS[1], '1:doctor', 'PX', 10000)",
            "try('SET KEEPTTL', 'SET', KEYS[1], '2:doctor', 'KEEPTTL')",
            "try('PTTL', 'PTTL', KEYS[1])",
            "try('PEXPIRE', 'PEXPIRE', KEYS[1], 10000)",
            "try('EXISTS', 'EXISTS', KEYS[1])",
            "try('TIME', 'TIME')",
            "try('ZADD', 'ZADD', KEYS[2], 'NX', 1, 'doctor')",
            "try('PEXPIRE', 'PEXPIRE', KEYS[2], 10000)",
            "try('ZRANGE', 'ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')",
            "try('ZRANGEBYSCORE', 'ZRANGEBYSCORE', KEYS[2], '-inf', '+inf')",
            "try('ZSCORE', 'ZSCORE', KEYS[2], 'doctor')",
            "try('ZCOUNT', 'ZCOUNT', KEYS[2], 0, '+inf')",
            "try('ZCARD', 'ZCARD', KEYS[2])",
            "try('ZREMRANGEBYSCORE', 'ZREMRANGEBYSCORE', KEYS[2], '-inf', 0)",
            "try('ZREM', 'ZREM', KEYS[2], 'doctor')",
            "try('ZPOPMIN', 'ZPOPMIN', KEYS[2])",
            "try('HSET', 'HSET', KEYS[3], 'doctor', '1')",
            "try('PEXPIRE', 'PEXPIRE', KEYS[3], 10000)",
            "try('HGET', 'HGET', KEYS[3], 'doctor')",
            "try('HINCRBY', 'HINCRBY', KEYS[3], 'used', 1)",
            "try('HGETALL', 'HGETALL', KEYS[3])",
            "try('HVALS', 'HVALS', KEYS[3])",
            "try('HDEL', 'HDEL', KEYS[3], 'doctor')",
            "try(ARGV[1], ARGV[1], ARGV[2], '')",
            "try('DEL', 'DEL', KEYS[1], KEYS[2], KEYS[3])",
            "return out");

    private final RedisCommands<String, String> redis;
    private final Supplier<StatefulRedisPubSubConnection<String, String>> pubSub;
    private final DoctorOptions options;
    private final String user;

    /**
     * @param redis   commands on the server under test
     * @param pubSub  opens a pub/sub connection to the same server, for the subscribe trial
     * @param options what the user needs
     * @param user    who the connection logged in as, as far as the URI says: named where {@code ACL WHOAMI} is
     *                refused
     */
    DoctorProbe(StatefulRedisConnection<String, String> redis,
                Supplier<StatefulRedisPubSubConnection<String, String>> pubSub, DoctorOptions options, String user) {
        this.redis = redis.sync();
        this.pubSub = pubSub;
        this.options = options;
        this.user = user;
    }

    /** The answer to one command: its value, or the server's (or the client's) error. */
    private record Outcome<T>(T value, String error) {
        boolean ok() {
            return error == null;
        }

        Optional<String> failure() {
            return Optional.ofNullable(error);
        }
    }

    private static <T> Outcome<T> attempt(Supplier<T> command) {
        try {
            return new Outcome<>(command.get(), null);
        } catch (RedisException e) {
            String message = e.getMessage() == null ? e.toString() : e.getMessage();
            return new Outcome<>(null, message.lines().findFirst().orElse(message));
        }
    }

    /** @return the report: the server's identity and every finding, in a fixed order */
    DoctorReport run() {
        List<Finding> findings = new ArrayList<>();
        Outcome<String> infoReply = attempt(redis::info);
        InfoReply info = InfoReply.parse(infoReply.ok() ? infoReply.value() : "");
        String version = info.get("redis_version").orElse("unknown");
        String mode = info.get("redis_mode").orElse("unknown");
        String role = info.get("role").orElse("unknown");
        boolean cluster = mode.equals("cluster");
        String infoFailure = "INFO failed: " + infoReply.error();

        if (infoReply.ok()) {
            findings.add(TopologyCheck.evaluate(mode, role, options.sentinelMaster()));
            findings.add(VersionCheck.evaluate(version, cluster));
        } else {
            findings.add(Finding.unchecked(TopologyCheck.CODE, infoFailure, "the doctor cannot tell a master from a "
                    + "replica, nor Cluster or Sentinel", "allow INFO for this user"));
            findings.add(Finding.unchecked(VersionCheck.CODE, infoFailure, "the version is unknown",
                    "check that the server runs Redis 6.2 or later"));
        }
        if (mode.equals("sentinel")) {
            String why = "the server is a Sentinel";
            for (String code : List.of(EvictionCheck.CODE, PersistenceCheck.CODE, ReplicationCheck.CODE,
                    ClockCheck.CODE, LatencyCheck.CODE, AclCheck.CODE)) {
                findings.add(Finding.unchecked(code, why, "the checks apply to the data servers",
                        "run warden doctor with the redis-sentinel:// URI"));
            }
            return new DoctorReport(options, version, mode, role, findings);
        }

        Config config = readConfig();
        findings.add(eviction(config, info, infoReply.ok()));
        findings.add(persistence(config, info, infoReply.ok()));
        config.failure.ifPresent(error -> findings.add(Finding.unchecked("CONFIG", "CONFIG GET failed: " + error,
                "managed servers often rename or forbid CONFIG. Read from INFO instead: maxmemory_policy, "
                        + "maxmemory, aof_enabled; not checked: the RDB save points and appendfsync",
                "check save and appendfsync in the server's configuration (or the provider's console)")));
        if (infoReply.ok()) {
            findings.add(ReplicationCheck.evaluate(role, cluster, info.number("connected_slaves", 0),
                    options.replicaAcks()));
        } else {
            findings.add(Finding.unchecked(ReplicationCheck.CODE, infoFailure, "the doctor cannot see the replicas, "
                    + "so it cannot tell whether a failover can lose a lock", "allow INFO for this user"));
        }
        findings.addAll(clockAndLatency());
        if (role.equals("master")) {
            findings.add(acl(cluster, version, infoReply));
        } else {
            findings.add(Finding.unchecked(AclCheck.CODE, infoReply.ok() ? "role " + role + ": not a master"
                    : infoFailure, "the trials write scratch keys, which only a master accepts",
                    "run warden doctor against the master"));
        }
        return new DoctorReport(options, version, mode, role, findings);
    }

    /** What {@code CONFIG GET} answered; stops at the first failure, which the other parameters would repeat. */
    private static final class Config {
        Optional<String> policy = Optional.empty();
        Optional<Long> maxmemory = Optional.empty();
        Optional<String> save = Optional.empty();
        Optional<String> appendonly = Optional.empty();
        Optional<String> appendfsync = Optional.empty();
        Optional<String> failure = Optional.empty();
    }

    private Config readConfig() {
        Config config = new Config();
        for (String parameter : List.of("maxmemory-policy", "maxmemory", "save", "appendonly", "appendfsync")) {
            // One parameter per call: Redis 6.2 takes only one.
            Outcome<Map<String, String>> reply = attempt(() -> redis.configGet(parameter));
            if (!reply.ok()) {
                config.failure = reply.failure();
                return config;
            }
            Optional<String> value = Optional.ofNullable(reply.value().get(parameter));
            switch (parameter) {
                case "maxmemory-policy" -> config.policy = value;
                case "maxmemory" -> config.maxmemory = value.map(Long::parseLong);
                case "save" -> config.save = value;
                case "appendonly" -> config.appendonly = value;
                default -> config.appendfsync = value;
            }
        }
        return config;
    }

    private static Finding eviction(Config config, InfoReply info, boolean infoOk) {
        Optional<String> policy = config.policy.or(() -> info.get("maxmemory_policy"));
        Optional<Long> maxmemory = config.maxmemory.or(() -> infoOk && info.get("maxmemory").isPresent()
                ? Optional.of(info.number("maxmemory", 0)) : Optional.empty());
        if (policy.isEmpty() || maxmemory.isEmpty()) {
            return Finding.unchecked(EvictionCheck.CODE, "neither CONFIG GET nor INFO memory answered",
                    "the doctor cannot tell whether lock keys can be evicted",
                    "check that maxmemory-policy is noeviction");
        }
        return EvictionCheck.evaluate(policy.get(), maxmemory.get());
    }

    private Finding persistence(Config config, InfoReply info, boolean infoOk) {
        Optional<Boolean> aof = config.appendonly.map(value -> value.equals("yes"))
                .or(() -> infoOk ? info.get("aof_enabled").map(value -> value.equals("1")) : Optional.empty());
        if (aof.isEmpty()) {
            return Finding.unchecked(PersistenceCheck.CODE, "neither CONFIG GET nor INFO persistence answered",
                    "the doctor cannot tell whether locks survive a restart",
                    "check appendonly, appendfsync and save in the server's configuration");
        }
        return PersistenceCheck.evaluate(options.durability(), aof.get(), config.save, config.appendfsync);
    }

    /**
     * The clock and the round trip, from {@code TIME}: Warden's scripts call it, so a user that may take locks may
     * send it (docs/acl.md's rule grants it, and not PING). Where TIME is refused, the round trip of a PING.
     */
    private List<Finding> clockAndLatency() {
        List<ClockCheck.Sample> clock = new ArrayList<>();
        long[] trips = new long[options.samples()];
        for (int i = 0; i < options.samples(); i++) {
            long start = System.nanoTime();
            long sent = micros(Instant.now());
            Outcome<List<String>> time = attempt(redis::time);
            long received = micros(Instant.now());
            trips[i] = System.nanoTime() - start;
            if (!time.ok()) {
                return List.of(Finding.unchecked(ClockCheck.CODE, "TIME failed: " + time.error(),
                        "the clocks were not compared; Warden's scripts read TIME too (see ACL)",
                        "allow TIME for this user"), pingLatency("TIME failed: " + time.error()));
            }
            long server = Long.parseLong(time.value().get(0)) * 1_000_000 + Long.parseLong(time.value().get(1));
            clock.add(new ClockCheck.Sample(sent, server, received));
        }
        return List.of(ClockCheck.evaluate(clock, options.maxClockOffset()),
                LatencyCheck.evaluate("TIME", trips, options.timeout()));
    }

    /** The round trip of PING, where TIME was refused ({@code why}). */
    private Finding pingLatency(String why) {
        long[] pings = new long[options.samples()];
        for (int i = 0; i < options.samples(); i++) {
            long start = System.nanoTime();
            Outcome<String> pong = attempt(redis::ping);
            pings[i] = System.nanoTime() - start;
            if (!pong.ok()) {
                return Finding.unchecked(LatencyCheck.CODE, why + "; PING failed: " + pong.error(),
                        "the round trip is unknown", "allow TIME for this user, or check the connection");
            }
        }
        return LatencyCheck.evaluate("PING", pings, options.timeout());
    }

    private static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1000;
    }

    private Finding acl(boolean cluster, String version, Outcome<String> infoReply) {
        Outcome<String> whoami = attempt(redis::aclWhoami);
        Outcome<String> tag = cluster ? localTag() : new Outcome<>(scratchTag(), null);
        if (!tag.ok()) {
            return Finding.unchecked(AclCheck.CODE, tag.error(), "the trials need a scratch key this node serves",
                    "run warden doctor against a master that serves slots");
        }
        String key = options.prefix() + "{" + tag.value() + "}";
        String[] keys = {key, key + ":w", key + ":r"};
        boolean sharded = cluster && majorVersion(version) >= 7;
        String publish = sharded ? "SPUBLISH" : "PUBLISH";
        String channel = key + ":c";
        String always = "every lock";
        List<AclCheck.Trial> trials = new ArrayList<>();
        // No CLIENT SETNAME: Lettuce names its connections in HELLO, which every user may send.
        trials.add(trial("SET NX PX", true, "a first try", attempt(() -> redis.set(key, ":doctor",
                SetArgs.Builder.nx().px(10_000)))));
        Outcome<List<Object>> eval = attempt(() -> redis.eval(TRIAL_SCRIPT, ScriptOutputType.MULTI, keys,
                publish, channel));
        trials.add(trial("EVAL", true, always, eval));
        if (eval.ok()) {
            for (Object line : eval.value()) {
                String[] parts = String.valueOf(line).split("\n", 2);
                // "@user_script: 4: The user executing the script can't ...": the line number says nothing here.
                String error = parts.length > 1 && !parts[1].isEmpty()
                        ? parts[1].replaceFirst("^@user_script: ?\\d+: ?", "") : null;
                trials.add(new AclCheck.Trial(parts[0] + " (in scripts)", true, always, Optional.ofNullable(error)));
            }
            Outcome<String> sha = attempt(() -> redis.digest(TRIAL_SCRIPT));
            trials.add(trial("EVALSHA", true, always, attempt(() -> redis.evalsha(sha.value(), ScriptOutputType.MULTI,
                    keys, publish, channel))));
        }
        trials.add(trial(sharded ? "SSUBSCRIBE" : "SUBSCRIBE", true, "waiting for a lock", subscribe(channel,
                sharded)));
        trials.add(trial("WAIT", options.replicaAcks() > 0 && !cluster, "replica acknowledgements",
                attempt(() -> redis.waitForReplication(0, 0))));
        trials.add(trial("INFO", cluster, "cluster clients (INFO server)", infoReply));
        // MATCH a pattern no key has: the trial reads one page of key names, none of them.
        trials.add(trial("SCAN", false, "listing locks (warden locks)", attempt(() -> redis.scan(
                ScanArgs.Builder.matches(key + ":no-such-key").limit(1)))));
        return AclCheck.evaluate(whoami.ok() ? whoami.value() : user, options.prefix(), merged(trials));
    }

    /** One trial per command: the scripts call some commands more than once; the first refusal counts. */
    private static List<AclCheck.Trial> merged(List<AclCheck.Trial> trials) {
        Map<String, AclCheck.Trial> byCommand = new LinkedHashMap<>();
        for (AclCheck.Trial trial : trials) {
            byCommand.merge(trial.command(), trial, (first, next) -> first.error().isPresent() ? first : next);
        }
        return List.copyOf(byCommand.values());
    }

    private static AclCheck.Trial trial(String command, boolean needed, String when, Outcome<?> outcome) {
        return new AclCheck.Trial(command, needed, when, outcome.failure());
    }

    private Outcome<Void> subscribe(String channel, boolean sharded) {
        StatefulRedisPubSubConnection<String, String> connection;
        try {
            connection = pubSub.get();
        } catch (RedisException e) {
            return new Outcome<>(null, "cannot open a pub/sub connection: " + e.getMessage());
        }
        try {
            return attempt(() -> {
                if (sharded) {
                    connection.sync().ssubscribe(channel);
                    connection.sync().sunsubscribe(channel);
                } else {
                    connection.sync().subscribe(channel);
                    connection.sync().unsubscribe(channel);
                }
                return null;
            });
        } finally {
            connection.close();
        }
    }

    private static String scratchTag() {
        return "warden-doctor-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    /** A scratch tag whose slot this cluster node serves: the trials cannot follow a redirection. */
    private Outcome<String> localTag() {
        Outcome<String> id = attempt(redis::clusterMyId);
        Outcome<List<Object>> slots = attempt(redis::clusterSlots);
        if (!id.ok() || !slots.ok()) {
            return new Outcome<>(null, "CLUSTER MYID / CLUSTER SLOTS failed: " + (id.ok() ? slots.error()
                    : id.error()));
        }
        List<long[]> ranges = new ArrayList<>();
        for (Object entry : slots.value()) {
            List<?> range = (List<?>) entry;
            List<?> master = (List<?>) range.get(2);
            if (master.size() > 2 && id.value().equals(String.valueOf(master.get(2)))) {
                ranges.add(new long[] {((Number) range.get(0)).longValue(), ((Number) range.get(1)).longValue()});
            }
        }
        if (ranges.isEmpty()) {
            return new Outcome<>(null, "this cluster node serves no slots");
        }
        for (int attempt = 0; attempt < 100_000; attempt++) {
            String tag = scratchTag();
            int slot = SlotHash.getSlot(tag);
            for (long[] range : ranges) {
                if (slot >= range[0] && slot <= range[1]) {
                    return new Outcome<>(tag, null);
                }
            }
        }
        return new Outcome<>(null, "found no scratch key in this node's slots");
    }

    private static int majorVersion(String version) {
        int dot = version.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
