package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.redisserver.RedisServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code warden doctor} as a real process against real servers, each started with one setting the doctor must
 * flag (or not): eviction, persistence, replicas, CONFIG renamed, ACL refusals, Cluster, Sentinel.
 */
// Tagged "full": slow (processes against several servers); in `mvn -B verify -Pfull` and CI.
@Tag("full")
@Timeout(120)
class DoctorIT {
    private static final Pattern FINDING = Pattern.compile("^(OK|WARN|UNSAFE|UNCHECKED) +([A-Z]+) ",
            Pattern.MULTILINE);
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private RedisServer start(String... args) {
        RedisServer server = RedisServer.builder().args(args).start();
        resources.add(server);
        return server;
    }

    private static Cli.Result doctor(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("doctor"));
        all.addAll(List.of(args));
        return Cli.run(all.toArray(String[]::new));
    }

    /** The code and severity of each finding of a text report, in order. */
    private static Map<String, String> findings(Cli.Result result) {
        Map<String, String> findings = new LinkedHashMap<>();
        Matcher m = FINDING.matcher(result.out());
        while (m.find()) {
            findings.put(m.group(2), m.group(1));
        }
        assertThat(findings).as("%s", result).containsKeys("TOPOLOGY", "VERSION", "EVICTION", "PERSISTENCE",
                "REPLICATION", "CLOCK", "LATENCY", "ACL");
        return findings;
    }

    /** The text of one finding's block: its line and the indented lines under it. */
    private static String block(Cli.Result result, String code) {
        Matcher m = Pattern.compile("^[A-Z]+ +" + code + " .*?(?=^[A-Z]|\\z)", Pattern.MULTILINE | Pattern.DOTALL)
                .matcher(result.out());
        assertThat(m.find()).as("%s has %s", result, code).isTrue();
        return m.group().replaceAll("\\s+", " ");
    }

    @Test
    void aSafeServerExitsZero() throws Exception {
        RedisServer server = start("--appendonly", "yes");
        Cli.Result result = doctor("--redis", server.uri());
        assertThat(result.exit()).as("%s", result).isZero();
        assertThat(findings(result)).as("%s", result).doesNotContainValue("UNSAFE")
                .containsEntry("EVICTION", "OK").containsEntry("PERSISTENCE", "OK").containsEntry("REPLICATION", "OK")
                .containsEntry("TOPOLOGY", "OK").containsEntry("ACL", "OK").containsEntry("CLOCK", "OK");
        assertThat(block(result, "EVICTION")).contains("noeviction").contains("writes fail");
        assertThat(block(result, "LATENCY")).containsPattern("p50 [0-9.]+ ms, max [0-9.]+ ms over 5 samples");
        assertThat(result.out()).contains("0 unsafe").contains("exit code 0");
        assertThat(result.err()).as("%s", result).isEmpty();
    }

    @Test
    void allKeysEvictionIsUnsafe() throws Exception {
        RedisServer server = start("--appendonly", "yes", "--maxmemory-policy", "allkeys-lru", "--maxmemory", "100mb");
        Cli.Result result = doctor("--redis", server.uri());
        assertThat(result.exit()).as("%s", result).isEqualTo(ExitCodes.UNSAFE_CONFIGURATION);
        assertThat(findings(result)).as("%s", result).containsEntry("EVICTION", "UNSAFE")
                .containsEntry("PERSISTENCE", "OK");
        assertThat(block(result, "EVICTION")).contains("allkeys-lru").contains("held locks included")
                .contains("do: set maxmemory-policy noeviction");
        assertThat(result.out()).contains("1 unsafe").contains("exit code 78");
    }

    @Test
    void volatileEvictionIsUnsafeBecauseEveryLockHasATtl() throws Exception {
        RedisServer server = start("--appendonly", "yes", "--maxmemory-policy", "volatile-lru", "--maxmemory", "100mb");
        Cli.Result result = doctor("--redis", server.uri());
        assertThat(result.exit()).as("%s", result).isEqualTo(ExitCodes.UNSAFE_CONFIGURATION);
        assertThat(findings(result)).as("%s", result).containsEntry("EVICTION", "UNSAFE");
        assertThat(block(result, "EVICTION")).contains("volatile-lru").contains("every Warden lock key has one");
    }

    @Test
    void persistenceOffIsUnsafeOnlyWhenLocksMustSurviveARestart() throws Exception {
        RedisServer server = start(); // save "" and appendonly no
        Cli.Result restart = doctor("--redis", server.uri());
        assertThat(restart.exit()).as("%s", restart).isEqualTo(ExitCodes.UNSAFE_CONFIGURATION);
        assertThat(findings(restart)).containsEntry("PERSISTENCE", "UNSAFE");
        assertThat(block(restart, "PERSISTENCE")).contains("appendonly no").contains("save \"\"")
                .contains("need: restart").contains("Persistence is off").contains("Fencing tokens keep rising");

        Cli.Result none = doctor("--redis", server.uri(), "--durability", "none");
        assertThat(none.exit()).as("%s", none).isZero();
        assertThat(findings(none)).containsEntry("PERSISTENCE", "OK");
        assertThat(block(none, "PERSISTENCE")).contains("you accept losing locks");
    }

    @Test
    void aPowerLossNeedsFsyncAlways() throws Exception {
        RedisServer server = start("--appendonly", "yes", "--appendfsync", "everysec");
        Cli.Result everysec = doctor("--redis", server.uri(), "--durability", "fsync");
        assertThat(everysec.exit()).as("%s", everysec).isEqualTo(ExitCodes.UNSAFE_CONFIGURATION);
        assertThat(findings(everysec)).containsEntry("PERSISTENCE", "UNSAFE");
        assertThat(block(everysec, "PERSISTENCE")).contains("appendfsync everysec").contains("once a second");
        assertThat(findings(doctor("--redis", server.uri()))).containsEntry("PERSISTENCE", "OK");

        server.call("CONFIG", "SET", "appendfsync", "always");
        Cli.Result always = doctor("--redis", server.uri(), "--durability", "fsync");
        assertThat(always.exit()).as("%s", always).isZero();
        assertThat(findings(always)).containsEntry("PERSISTENCE", "OK");
    }

    @Test
    void aReplicaWithoutAcknowledgementsCanLoseALock() throws Exception {
        // Redis 7.0 waits 5 s by default before a replica's first (diskless) sync.
        RedisServer master = start("--appendonly", "yes", "--repl-diskless-sync-delay", "0");
        RedisServer replica = start("--appendonly", "yes", "--replicaof", master.host(),
                Integer.toString(master.port()));
        replica.awaitReplicaSync(Duration.ofSeconds(20));
        Cli.Result unacked = doctor("--redis", master.uri());
        assertThat(unacked.exit()).as("%s", unacked).isEqualTo(ExitCodes.UNSAFE_CONFIGURATION);
        assertThat(findings(unacked)).containsEntry("REPLICATION", "UNSAFE");
        assertThat(block(unacked, "REPLICATION")).contains("connected replicas 1").contains("failover")
                .contains("--replica-acks 1");

        Cli.Result acked = doctor("--redis", master.uri(), "--replica-acks", "1");
        assertThat(acked.exit()).as("%s", acked).isZero();
        assertThat(findings(acked)).containsEntry("REPLICATION", "OK");

        Cli.Result tooMany = doctor("--redis", master.uri(), "--replica-acks", "2");
        assertThat(tooMany.exit()).as("%s", tooMany).isEqualTo(ExitCodes.UNSAFE_CONFIGURATION);
        assertThat(block(tooMany, "REPLICATION")).contains("fails closed");

        Cli.Result onReplica = doctor("--redis", replica.uri());
        assertThat(onReplica.exit()).as("%s", onReplica).isEqualTo(ExitCodes.UNSAFE_CONFIGURATION);
        assertThat(findings(onReplica)).containsEntry("TOPOLOGY", "UNSAFE").containsEntry("REPLICATION", "UNCHECKED")
                .containsEntry("ACL", "UNCHECKED");
        assertThat(block(onReplica, "TOPOLOGY")).contains("role slave").contains("READONLY");
    }

    @Test
    void withConfigRenamedTheDoctorSaysWhatItCouldNotCheckAndChecksTheRest() throws Exception {
        RedisServer server = start("--appendonly", "yes", "--rename-command", "CONFIG", "",
                "--maxmemory-policy", "allkeys-lru", "--maxmemory", "100mb");
        Cli.Result result = doctor("--redis", server.uri());
        Map<String, String> findings = findings(result);
        assertThat(findings).as("%s", result).containsEntry("CONFIG", "UNCHECKED")
                // From INFO instead: the policy, the limit and AOF.
                .containsEntry("EVICTION", "UNSAFE").containsEntry("PERSISTENCE", "OK")
                .containsEntry("REPLICATION", "OK").containsEntry("ACL", "OK").containsEntry("CLOCK", "OK");
        assertThat(block(result, "CONFIG")).contains("CONFIG GET failed").contains("unknown command")
                .contains("not checked: the RDB save points and appendfsync");
        assertThat(block(result, "EVICTION")).contains("allkeys-lru").contains("104857600");
        assertThat(result.exit()).as("%s", result).isEqualTo(ExitCodes.UNSAFE_CONFIGURATION);

        Cli.Result fsync = doctor("--redis", server.uri(), "--durability", "fsync", "--prefix", "other:");
        assertThat(findings(fsync)).containsEntry("PERSISTENCE", "UNCHECKED");
        assertThat(block(fsync, "PERSISTENCE")).contains("appendfsync (unknown)");
    }

    @Test
    void aclRefusalsAreNamedWithTheRulesThatAllowThem() throws Exception {
        RedisServer server = start("--appendonly", "yes");
        server.call("ACL", "SETUSER", "locker", "on", ">secret", "~warden:*", "&*", "+@all", "-zpopmin",
                "-subscribe");
        server.call("ACL", "SETUSER", "elsewhere", "on", ">secret", "~other:*", "&*", "+@all");
        server.call("ACL", "SETUSER", "full", "on", ">secret", "~warden:*", "&*", "+@all");
        String uri = "redis://%s:secret@" + server.host() + ":" + server.port();

        Cli.Result refused = doctor("--redis", uri.formatted("locker"));
        assertThat(refused.exit()).as("%s", refused).isEqualTo(ExitCodes.UNSAFE_CONFIGURATION);
        assertThat(findings(refused)).containsEntry("ACL", "UNSAFE").containsEntry("EVICTION", "OK");
        String acl = block(refused, "ACL");
        assertThat(acl).contains("user locker").contains("ZPOPMIN (in scripts)").contains("SUBSCRIBE (NOPERM")
                .contains("ACL SETUSER locker +zpopmin +subscribe ~warden:* &warden:*")
                .doesNotContain("EVAL (").doesNotContain("HSET");
        assertThat(refused.out()).doesNotContain("secret");

        Cli.Result otherKeys = doctor("--redis", uri.formatted("elsewhere"));
        assertThat(findings(otherKeys)).containsEntry("ACL", "UNSAFE");
        assertThat(block(otherKeys, "ACL")).contains("SET NX PX (NOPERM")
                .contains("EVAL (NOPERM this user has no permissions to access one of the keys")
                .contains("the commands the scripts call were not tried")
                .contains("ACL SETUSER elsewhere ~warden:* &warden:*");

        Cli.Result full = doctor("--redis", uri.formatted("full"));
        assertThat(full.exit()).as("%s", full).isZero();
        assertThat(findings(full)).containsEntry("ACL", "OK");
        assertThat(block(full, "ACL")).contains("user full").doesNotContain("refused:");
        // The trials leave no keys behind.
        assertThat(server.call("DBSIZE")).isEqualTo(0L);
    }

    @Test
    void jsonCarriesTheSameFindingsAsText() throws Exception {
        RedisServer server = start("--maxmemory-policy", "volatile-ttl", "--maxmemory", "100mb");
        Cli.Result text = doctor("--redis", server.uri(), "--replica-acks", "0");
        Cli.Result json = doctor("--redis", server.uri(), "--replica-acks", "0", "--json");
        assertThat(json.exit()).as("%s", json).isEqualTo(text.exit()).isEqualTo(ExitCodes.UNSAFE_CONFIGURATION);
        @SuppressWarnings("unchecked")
        Map<String, Object> report = (Map<String, Object>) Json.parse(json.out());
        assertThat(report).containsKeys("target", "server", "options", "findings", "counts", "exitCode");
        assertThat(report).containsEntry("target", server.uri()).containsEntry("exitCode", 78L);
        assertThat(report.get("server")).isEqualTo(Map.of("version", ((Map<?, ?>) report.get("server"))
                .get("version"), "mode", "standalone", "role", "master"));
        Map<String, String> fromJson = new LinkedHashMap<>();
        for (Object item : (List<?>) report.get("findings")) {
            Map<?, ?> finding = (Map<?, ?>) item;
            assertThat(finding.keySet().stream().map(String::valueOf).toList())
                    .containsExactly("severity", "code", "observed", "meaning", "action");
            fromJson.put((String) finding.get("code"), (String) finding.get("severity"));
        }
        assertThat(fromJson).containsExactlyEntriesOf(findings(text));
        assertThat(fromJson).containsEntry("EVICTION", "UNSAFE").containsEntry("PERSISTENCE", "UNSAFE");
        assertThat(report.get("counts")).isEqualTo(Map.of("OK", 6L, "WARN", 0L, "UNSAFE", 2L, "UNCHECKED", 0L));
    }

    @Test
    void aClusterNodeIsCheckedOnItsOwnSlots() throws Exception {
        RedisServer node = RedisServer.builder().args("--appendonly", "yes").cluster().start();
        resources.add(node);
        List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
        for (int slot = 0; slot < 16384; slot++) {
            addSlots.add(Integer.toString(slot));
        }
        node.call(addSlots.toArray(String[]::new));
        node.awaitLog("Cluster state changed: ok", Duration.ofSeconds(30));
        Cli.Result result = doctor("--redis", node.uri());
        Map<String, String> findings = findings(result);
        assertThat(findings).as("%s", result).containsEntry("TOPOLOGY", "WARN").containsEntry("ACL", "OK")
                .containsEntry("REPLICATION", "OK").containsEntry("VERSION", node.majorVersion() >= 7 ? "OK" : "WARN");
        assertThat(block(result, "TOPOLOGY")).contains("redis_mode cluster").contains("LockConfig.cluster");
        // Sharded pub/sub from Redis 7 on: the trials subscribe and publish as a cluster client of that version.
        String acl = block(result, "ACL");
        assertThat(acl).contains(node.majorVersion() >= 7 ? "SSUBSCRIBE, " : "SUBSCRIBE, ");
        assertThat(acl.substring(acl.indexOf("in scripts:"))).contains(node.majorVersion() >= 7 ? "SPUBLISH"
                : "PUBLISH").contains("ZPOPMIN");
        assertThat(result.exit()).as("%s", result).isZero();
    }

    @Test
    void sentinelIsFollowedToItsMasterAndASentinelItselfIsNoDataServer() throws Exception {
        RedisServer master = start("--appendonly", "yes");
        RedisServer sentinel = RedisServer.builder().sentinel("locks", master.port(), 1, Duration.ofSeconds(60))
                .start();
        resources.add(sentinel);
        Cli.Result viaSentinel = doctor("--redis", "redis-sentinel://" + sentinel.host() + ":" + sentinel.port()
                + "#locks");
        assertThat(viaSentinel.exit()).as("%s", viaSentinel).isZero();
        assertThat(findings(viaSentinel)).containsEntry("TOPOLOGY", "OK").containsEntry("ACL", "OK");
        assertThat(block(viaSentinel, "TOPOLOGY")).contains("master 'locks' named by Sentinel");

        Cli.Result direct = doctor("--redis", sentinel.uri());
        assertThat(direct.exit()).as("%s", direct).isEqualTo(ExitCodes.UNSAFE_CONFIGURATION);
        assertThat(findings(direct)).containsEntry("TOPOLOGY", "UNSAFE").containsEntry("EVICTION", "UNCHECKED");
        assertThat(block(direct, "TOPOLOGY")).contains("redis_mode sentinel").contains("redis-sentinel://");
    }

    @Test
    void anUnreachableServerExits69() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        Cli.Result result = doctor("--redis", "redis://127.0.0.1:" + port, "--timeout", "2s");
        assertThat(result.exit()).as("%s", result).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
        assertThat(result.err()).contains("cannot connect to redis://127.0.0.1:" + port);
        assertThat(result.out()).isEmpty();
    }

    @Test
    void badOptionsAreUsageErrors() throws Exception {
        Cli.Result result = doctor("--durability", "forever");
        assertThat(result.exit()).as("%s", result).isEqualTo(ExitCodes.USAGE);
        assertThat(result.err()).contains("none, restart or fsync");
        assertThat(doctor("--replica-acks", "-1").exit()).isEqualTo(ExitCodes.USAGE);
    }
}
