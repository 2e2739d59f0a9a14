package dev.warden.cli.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.cli.Json;

import dev.warden.cli.doctor.Finding.Severity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The doctor's decisions, which need no server: parsing INFO and judging each setting. */
@Timeout(10)
class DoctorChecksTest {

    @Test
    void infoIsParsedAcrossSectionsAndLineEndings() {
        InfoReply info = InfoReply.parse("# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n\r\n"
                + "# Replication\r\nrole:master\r\nconnected_slaves:2\r\n"
                + "slave0:ip=127.0.0.1,port=6380,state=online,offset=1,lag=0\r\n");
        assertThat(info.get("redis_version")).contains("7.0.15");
        assertThat(info.get("role")).contains("master");
        assertThat(info.number("connected_slaves", -1)).isEqualTo(2);
        assertThat(info.get("slave0")).contains("ip=127.0.0.1,port=6380,state=online,offset=1,lag=0");
        assertThat(info.get("# Server")).isEmpty();
        assertThat(info.number("redis_mode", -1)).isEqualTo(-1);
        assertThat(info.number("missing", 7)).isEqualTo(7);
    }

    @Test
    void everyEvictingPolicyIsUnsafeUnderALimit() {
        for (String policy : List.of("allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru",
                "volatile-lfu", "volatile-random", "volatile-ttl")) {
            Finding finding = EvictionCheck.evaluate(policy, 100 << 20);
            assertThat(finding.severity()).as(policy).isEqualTo(Severity.UNSAFE);
            assertThat(finding.action()).as(policy).contains("noeviction");
            assertThat(EvictionCheck.evaluate(policy, 0).severity()).as(policy + " without a limit")
                    .isEqualTo(Severity.WARN);
        }
        assertThat(EvictionCheck.evaluate("volatile-lru", 1).meaning()).contains("TTL");
        assertThat(EvictionCheck.evaluate("noeviction", 100 << 20).severity()).isEqualTo(Severity.OK);
        assertThat(EvictionCheck.evaluate("noeviction", 100 << 20).meaning()).contains("writes fail");
        assertThat(EvictionCheck.evaluate("some-new-policy", 1).severity()).isEqualTo(Severity.WARN);
    }

    @Test
    void persistenceIsJudgedAgainstTheStatedNeed() {
        Optional<String> noSave = Optional.of("");
        Optional<String> rdb = Optional.of("3600 1 300 100");
        Optional<String> everysec = Optional.of("everysec");
        Optional<String> always = Optional.of("always");
        assertThat(PersistenceCheck.evaluate(Durability.NONE, false, noSave, everysec).severity())
                .isEqualTo(Severity.OK);
        assertThat(PersistenceCheck.evaluate(Durability.RESTART, false, noSave, everysec).severity())
                .isEqualTo(Severity.UNSAFE);
        Finding rdbOnly = PersistenceCheck.evaluate(Durability.RESTART, false, rdb, everysec);
        assertThat(rdbOnly.severity()).isEqualTo(Severity.UNSAFE);
        assertThat(rdbOnly.meaning()).contains("snapshot").contains("Fencing tokens keep rising");
        assertThat(PersistenceCheck.evaluate(Durability.RESTART, true, noSave, Optional.of("no")).severity())
                .isEqualTo(Severity.OK);
        assertThat(PersistenceCheck.evaluate(Durability.RESTART, true, Optional.empty(), Optional.empty())
                .severity()).isEqualTo(Severity.OK);
        assertThat(PersistenceCheck.evaluate(Durability.FSYNC, true, noSave, everysec).severity())
                .isEqualTo(Severity.UNSAFE);
        assertThat(PersistenceCheck.evaluate(Durability.FSYNC, true, noSave, always).severity())
                .isEqualTo(Severity.OK);
        assertThat(PersistenceCheck.evaluate(Durability.FSYNC, false, rdb, always).severity())
                .isEqualTo(Severity.UNSAFE);
        assertThat(PersistenceCheck.evaluate(Durability.FSYNC, true, Optional.empty(), Optional.empty())
                .severity()).isEqualTo(Severity.UNCHECKED);
    }

    @Test
    void replicasNeedAsManyAcknowledgements() {
        assertThat(ReplicationCheck.evaluate("master", false, 0, 0).severity()).isEqualTo(Severity.OK);
        Finding unacked = ReplicationCheck.evaluate("master", false, 2, 0);
        assertThat(unacked.severity()).isEqualTo(Severity.UNSAFE);
        assertThat(unacked.meaning()).contains("failover");
        assertThat(unacked.action()).contains("replicaAcks(2");
        assertThat(ReplicationCheck.evaluate("master", false, 2, 1).severity()).isEqualTo(Severity.WARN);
        assertThat(ReplicationCheck.evaluate("master", false, 2, 2).severity()).isEqualTo(Severity.OK);
        assertThat(ReplicationCheck.evaluate("master", false, 1, 2).severity()).isEqualTo(Severity.UNSAFE);
        assertThat(ReplicationCheck.evaluate("master", false, 0, 1).meaning()).contains("fails closed");
        // A cluster's master is judged as any master: acknowledgements are counted by each lock's slot's master.
        assertThat(ReplicationCheck.evaluate("master", true, 1, 0).severity()).isEqualTo(Severity.UNSAFE);
        assertThat(ReplicationCheck.evaluate("master", true, 1, 0).action()).contains("every master's replicas");
        assertThat(ReplicationCheck.evaluate("master", true, 1, 1).severity()).isEqualTo(Severity.OK);
        assertThat(ReplicationCheck.evaluate("master", true, 0, 0).severity()).isEqualTo(Severity.OK);
        assertThat(ReplicationCheck.evaluate("slave", false, 0, 0).severity()).isEqualTo(Severity.UNCHECKED);
    }

    @Test
    void topologySaysWhatToConfigure() {
        assertThat(TopologyCheck.evaluate("standalone", "master", Optional.empty()).severity())
                .isEqualTo(Severity.OK);
        Finding sentinelMaster = TopologyCheck.evaluate("standalone", "master", Optional.of("mymaster"));
        assertThat(sentinelMaster.severity()).isEqualTo(Severity.OK);
        assertThat(sentinelMaster.observed()).contains("'mymaster' named by Sentinel");
        Finding cluster = TopologyCheck.evaluate("cluster", "master", Optional.empty());
        assertThat(cluster.severity()).isEqualTo(Severity.WARN);
        assertThat(cluster.meaning()).contains("LockConfig.cluster");
        assertThat(TopologyCheck.evaluate("standalone", "slave", Optional.empty()).severity())
                .isEqualTo(Severity.UNSAFE);
        Finding sentinel = TopologyCheck.evaluate("sentinel", "master", Optional.empty());
        assertThat(sentinel.severity()).isEqualTo(Severity.UNSAFE);
        assertThat(sentinel.action()).contains("redis-sentinel://");
    }

    @Test
    void versionsBelowWhatTheScriptsNeedAreFlagged() {
        assertThat(VersionCheck.evaluate("5.0.14", false).severity()).isEqualTo(Severity.UNSAFE);
        assertThat(VersionCheck.evaluate("5.0.14", false).meaning()).contains("KEEPTTL");
        assertThat(VersionCheck.evaluate("6.0.20", false).severity()).isEqualTo(Severity.WARN);
        assertThat(VersionCheck.evaluate("6.2.6", false).severity()).isEqualTo(Severity.OK);
        assertThat(VersionCheck.evaluate("6.2.6", true).severity()).isEqualTo(Severity.WARN);
        assertThat(VersionCheck.evaluate("6.2.6", true).meaning()).contains("sharded pub/sub");
        assertThat(VersionCheck.evaluate("7.0.15", true).severity()).isEqualTo(Severity.OK);
        assertThat(VersionCheck.evaluate("10.0.1", false).severity()).isEqualTo(Severity.OK);
        assertThat(VersionCheck.evaluate("unknown", false).severity()).isEqualTo(Severity.UNCHECKED);
    }

    private static ClockCheck.Sample sample(long clientMicros, long offsetMicros, long roundTripMicros) {
        return new ClockCheck.Sample(clientMicros, clientMicros + roundTripMicros / 2 + offsetMicros,
                clientMicros + roundTripMicros);
    }

    @Test
    void clockOffsetsAboveTheBoundWarn() {
        long now = 1_700_000_000_000_000L;
        Duration bound = Duration.ofSeconds(1);
        assertThat(sample(now, 1234, 500).offsetMicros()).isEqualTo(1234);
        assertThat(ClockCheck.evaluate(List.of(sample(now, 900_000, 500), sample(now + 10_000, 900_100, 500)),
                bound).severity()).isEqualTo(Severity.OK);
        Finding ahead = ClockCheck.evaluate(List.of(sample(now, 2_500_000, 500), sample(now + 10_000, 2_500_000,
                500), sample(now + 20_000, 2_500_000, 500)), bound);
        assertThat(ahead.severity()).isEqualTo(Severity.WARN);
        assertThat(ahead.observed()).contains("ahead of").contains("2500.000 ms");
        assertThat(ahead.meaning()).contains("expires leases early");
        Finding behind = ClockCheck.evaluate(List.of(sample(now, -3_000_000, 500)), bound);
        assertThat(behind.severity()).isEqualTo(Severity.WARN);
        assertThat(behind.observed()).contains("behind");
        // A slow round trip leaves the offset uncertain: no warning unless it exceeds the bound for certain.
        assertThat(ClockCheck.evaluate(List.of(sample(now, 1_200_000, 600_000)), bound).severity())
                .isEqualTo(Severity.OK);
        Finding jump = ClockCheck.evaluate(List.of(sample(now, 0, 500), sample(now + 10_000, 0, 500),
                sample(now + 20_000, 1_600_000, 500)), bound);
        assertThat(jump.severity()).isEqualTo(Severity.WARN);
        assertThat(jump.meaning()).contains("jumped");
    }

    @Test
    void latencyIsReportedAsMedianAndMaximum() {
        Duration timeout = Duration.ofSeconds(3);
        Finding fast = LatencyCheck.evaluate("TIME", new long[] {300_000, 200_000, 900_000}, timeout);
        assertThat(fast.severity()).isEqualTo(Severity.OK);
        assertThat(fast.observed()).isEqualTo("TIME round trip p50 0.300 ms, max 0.900 ms over 3 samples");
        assertThat(LatencyCheck.evaluate("TIME", new long[] {80_000_000, 90_000_000, 70_000_000}, timeout).severity())
                .isEqualTo(Severity.WARN);
        Finding nearTimeout = LatencyCheck.evaluate("TIME", new long[] {1_000_000, 1_600_000_000L}, timeout);
        assertThat(nearTimeout.severity()).isEqualTo(Severity.WARN);
        assertThat(nearTimeout.meaning()).contains("command timeout");
    }

    @Test
    void refusedCommandsThatWardenNeedsAreUnsafe() {
        AclCheck.Trial eval = new AclCheck.Trial("EVAL", true, "every lock", Optional.empty());
        AclCheck.Trial zpop = new AclCheck.Trial("ZPOPMIN (in scripts)", true, "every lock",
                Optional.of("The user executing the script can't run this command or subcommand"));
        AclCheck.Trial setname = new AclCheck.Trial("CLIENT SETNAME", true, "every connection",
                Optional.of("NOPERM"));
        AclCheck.Trial wait = new AclCheck.Trial("WAIT", false, "replica acknowledgements", Optional.of("NOPERM"));
        assertThat(AclCheck.evaluate("app", "warden:", List.of(eval)).severity()).isEqualTo(Severity.OK);
        Finding refused = AclCheck.evaluate("app", "warden:", List.of(eval, zpop, setname, wait));
        assertThat(refused.severity()).isEqualTo(Severity.UNSAFE);
        assertThat(refused.observed()).contains("1 of 4").contains("ZPOPMIN (in scripts)").contains("WAIT");
        assertThat(refused.meaning()).contains("ZPOPMIN").contains("CLIENT SETNAME").doesNotContain("WAIT");
        assertThat(refused.action()).contains("ACL SETUSER app +zpopmin +client|setname ~warden:* &warden:*");
        // PUBSUB is granted by subcommand, as docs/acl.md grants it.
        assertThat(AclCheck.rule(new AclCheck.Trial("PUBSUB NUMSUB (in scripts)", true, "every lock",
                Optional.of("The user executing the script can't run this command or subcommand"))))
                .isEqualTo("+pubsub|numsub");
        assertThat(AclCheck.evaluate("app", "warden:", List.of(eval, wait)).severity()).isEqualTo(Severity.WARN);
        AclCheck.Trial keys = new AclCheck.Trial("EVAL", true, "every lock",
                Optional.of("NOPERM this user has no permissions to access one of the keys used as arguments"));
        Finding keyPatterns = AclCheck.evaluate("app", "locks:", List.of(keys));
        assertThat(keyPatterns.action()).endsWith("ACL SETUSER app ~locks:* &locks:*");
        assertThat(keyPatterns.observed()).contains("the commands the scripts call were not tried");
    }

    @Test
    void theAclTrialsTryEveryCommandTheLockScriptsCall() throws IOException {
        Pattern call = Pattern.compile("redis\\.p?call\\(\\s*'(\\w+)'");
        Set<String> called = new TreeSet<>();
        try (Stream<Path> files = Files.list(Path.of("../warden-core/src/main/resources/dev/warden/internal/script"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".lua")).collect(Collectors.toList())) {
                Matcher m = call.matcher(Files.readString(file, StandardCharsets.UTF_8));
                while (m.find()) {
                    called.add(m.group(1));
                }
            }
        }
        Set<String> tried = new TreeSet<>();
        Matcher trial = Pattern.compile("try\\('[^']*', '(\\w+)'").matcher(AclTrials.TRIAL_SCRIPT);
        while (trial.find()) {
            tried.add(trial.group(1));
        }
        assertThat(called).hasSizeGreaterThan(20);
        assertThat(tried).isEqualTo(called);
    }

    @Test
    void everyCheckIsOneOfTheProbesInTheReportsOrderWithCodesOfItsOwn() {
        List<String> codes = DoctorProbe.CHECKS.stream().flatMap(check -> check.codes().stream()).toList();
        assertThat(codes).containsExactly(TopologyCheck.CODE, VersionCheck.CODE, EvictionCheck.CODE,
                PersistenceCheck.CODE, ReplicationCheck.CODE, ClockCheck.CODE, LatencyCheck.CODE, AclCheck.CODE);
        // On a Sentinel only the topology and the version apply: the others are listed as unchecked by their codes.
        assertThat(DoctorProbe.CHECKS.stream().filter(Check::onSentinel).flatMap(check -> check.codes().stream()))
                .containsExactly(TopologyCheck.CODE, VersionCheck.CODE);
    }

    @Test
    void theExitCodeIsUnsafeOnlyForAnUnsafeFinding() {
        DoctorOptions options = new DoctorOptions("redis://h:1", Optional.empty(), "warden:", Duration.ofSeconds(3),
                Durability.RESTART, 0, Duration.ofSeconds(1), 5);
        Finding ok = Finding.ok("A", "a", "fine");
        Finding warn = Finding.warn("B", "b", "hm", "look");
        Finding unchecked = Finding.unchecked("C", "c", "unknown", "ask");
        Finding unsafe = Finding.unsafe("D", "d", "bad", "fix");
        assertThat(new DoctorReport(options, "7.0.15", "standalone", "master", List.of(ok, warn, unchecked))
                .exitCode()).isZero();
        DoctorReport bad = new DoctorReport(options, "7.0.15", "standalone", "master", List.of(ok, unsafe));
        assertThat(bad.exitCode()).isEqualTo(78).isNotIn(1, 64, 69, 70, 75, 76, 126, 127);
        assertThat(bad.counts()).containsEntry(Severity.UNSAFE, 1).containsEntry(Severity.WARN, 0);
    }

    @Test
    void jsonEscapesAndParses() {
        assertThat(DoctorJson.string("a\"b\\c\nd\te\u0001")).isEqualTo("\"a\\\"b\\\\c\\nd\\te\\u0001\"");
        DoctorOptions options = new DoctorOptions("redis://h:1", Optional.empty(), "we\"ird:", Duration.ofSeconds(3),
                Durability.FSYNC, 2, Duration.ofMillis(250), 3);
        DoctorReport report = new DoctorReport(options, "6.2.6", "standalone", "master",
                List.of(Finding.unsafe("EVICTION", "maxmemory-policy \"allkeys-lru\"", "evicts\nlocks", "fix it"),
                        Finding.ok("VERSION", "6.2.6", "fine")));
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) Json.parse(DoctorJson.render(report));
        assertThat(json).containsEntry("exitCode", 78L).containsEntry("target", "redis://h:1");
        assertThat(json.get("options")).isEqualTo(Map.of("durability", "fsync", "replicaAcks", 2L,
                "prefix", "we\"ird:", "maxClockOffsetMillis", 250L, "samples", 3L));
        assertThat(json.get("findings")).isEqualTo(List.of(
                Map.of("severity", "UNSAFE", "code", "EVICTION", "observed", "maxmemory-policy \"allkeys-lru\"",
                        "meaning", "evicts\nlocks", "action", "fix it"),
                Map.of("severity", "OK", "code", "VERSION", "observed", "6.2.6", "meaning", "fine", "action", "")));
        assertThat(json.get("counts")).isEqualTo(Map.of("OK", 1L, "WARN", 0L, "UNSAFE", 1L, "UNCHECKED", 0L));
    }
}
