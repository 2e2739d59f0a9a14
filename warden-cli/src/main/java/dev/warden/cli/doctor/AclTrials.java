package dev.warden.cli.doctor;

import dev.warden.cli.doctor.DoctorProbe.Outcome;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import static dev.warden.cli.doctor.DoctorProbe.attempt;

/**
 * The ACL check's trials ({@link AclCheck}): every command that Warden's scripts, waiters and tools send, tried on a
 * scratch lock of the server under test (keys under the clients' prefix, removed at once), each refusal named.
 */
final class AclTrials {
    /**
     * Every command that the lock scripts call, tried in one script on a scratch lock; ARGV[1] is the publish, ARGV[2]
     * the channel, ARGV[3] the subscriber count that goes with the publish (NUMSUB, or SHARDNUMSUB).
     */
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
            "local now = redis.pcall('TIME')",
            "local soon = type(now) == 'table' and not now.err and tonumber(now[1]) * 1000 + 10000 or 0",
            "try('PEXPIREAT', 'PEXPIREAT', KEYS[1], string.format('%.0f', soon))",
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
            "try('HMGET', 'HMGET', KEYS[3], 'doctor', 'used')",
            "try('HINCRBY', 'HINCRBY', KEYS[3], 'used', 1)",
            "try('HGETALL', 'HGETALL', KEYS[3])",
            "try('HVALS', 'HVALS', KEYS[3])",
            "try('HDEL', 'HDEL', KEYS[3], 'doctor')",
            "try(ARGV[1], ARGV[1], ARGV[2], '')",
            "try('PUBSUB', 'PUBSUB', ARGV[3], ARGV[2])",
            "try('DEL', 'DEL', KEYS[1], KEYS[2], KEYS[3])",
            "return out");

    private final DoctorProbe probe;
    private final RedisCommands<String, String> redis;

    private AclTrials(DoctorProbe probe) {
        this.probe = probe;
        this.redis = probe.redis();
    }

    /**
     * Tries every command a lock needs on a scratch lock of this server, and judges the refusals.
     *
     * @param probe the server under test: a master
     */
    static Finding run(DoctorProbe probe) {
        return new AclTrials(probe).trials();
    }

    private Finding trials() {
        boolean cluster = probe.cluster();
        String version = probe.version();
        Outcome<String> infoReply = probe.infoReply();
        Outcome<String> whoami = attempt(redis::aclWhoami);
        Outcome<String> tag = cluster ? localTag() : new Outcome<>(scratchTag(), null);
        if (!tag.ok()) {
            return Finding.unchecked(AclCheck.CODE, tag.error(), "the trials need a scratch key this node serves",
                    "run warden doctor against a master that serves slots");
        }
        String key = probe.options().prefix() + "{" + tag.value() + "}";
        String[] keys = {key, key + ":w", key + ":r"};
        boolean sharded = cluster && majorVersion(version) >= 7;
        String publish = sharded ? "SPUBLISH" : "PUBLISH";
        String subscribers = sharded ? "SHARDNUMSUB" : "NUMSUB";
        String channel = key + ":c";
        String always = "every lock";
        List<AclCheck.Trial> trials = new ArrayList<>();
        // No CLIENT SETNAME: Lettuce names its connections in HELLO, which every user may send.
        trials.add(trial("SET NX PX", true, "a first try", attempt(() -> redis.set(key, ":doctor",
                SetArgs.Builder.nx().px(10_000)))));
        Outcome<List<Object>> eval = attempt(() -> redis.eval(TRIAL_SCRIPT, ScriptOutputType.MULTI, keys,
                publish, channel, subscribers));
        trials.add(trial("EVAL", true, always, eval));
        if (eval.ok()) {
            for (Object line : eval.value()) {
                String[] parts = String.valueOf(line).split("\n", 2);
                // "@user_script: 4: The user executing the script can't ...": the line number says nothing here.
                String error = parts.length > 1 && !parts[1].isEmpty()
                        ? parts[1].replaceFirst("^@user_script: ?\\d+: ?", "") : null;
                // PUBSUB is granted by subcommand: the trial names the one the scripts call.
                String command = parts[0].equals("PUBSUB") ? parts[0] + " " + subscribers : parts[0];
                trials.add(new AclCheck.Trial(command + " (in scripts)", true, always, Optional.ofNullable(error)));
            }
            Outcome<String> sha = attempt(() -> redis.digest(TRIAL_SCRIPT));
            trials.add(trial("EVALSHA", true, always, attempt(() -> redis.evalsha(sha.value(), ScriptOutputType.MULTI,
                    keys, publish, channel, subscribers))));
        }
        trials.add(trial(sharded ? "SSUBSCRIBE" : "SUBSCRIBE", true, "waiting for a lock", subscribe(channel,
                sharded)));
        trials.add(trial("WAIT", probe.options().replicaAcks() > 0 && !cluster, "replica acknowledgements",
                attempt(() -> redis.waitForReplication(0, 0))));
        trials.add(trial("INFO", cluster, "cluster clients (INFO server)", infoReply));
        // MATCH a pattern no key has: the trial reads one page of key names, none of them.
        trials.add(trial("SCAN", false, "listing locks (warden locks)", attempt(() -> redis.scan(
                ScanArgs.Builder.matches(key + ":no-such-key").limit(1)))));
        return AclCheck.evaluate(whoami.ok() ? whoami.value() : probe.user(), probe.options().prefix(),
                merged(trials));
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
            connection = probe.pubSub().get();
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
