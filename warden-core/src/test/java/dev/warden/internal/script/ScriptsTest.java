package dev.warden.internal.script;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.redisserver.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The scripts as Redis sees them: each compiles with its preludes, none is left out, what they share lives in the
 * preludes only, and the preludes' functions do what the scripts rely on.
 */
@Timeout(60)
class ScriptsTest {
    private static final Path RESOURCES = Path.of("src/main/resources/dev/warden/internal/script");
    private static final List<String> PRELUDES = List.of(Scripts.LOCK, Scripts.QUEUE, "share");
    private static RedisServer server;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyScriptCompilesOnTheServerWithItsPreludes() {
        assertThat(every()).extracting(Script::name).doesNotHaveDuplicates().contains("share-resize");
        for (Script script : every()) {
            assertThat(server.call("SCRIPT", "LOAD", script.source())).as(script.name()).isEqualTo(script.sha());
        }
    }

    @Test
    void everyScriptResourceIsOneTheClientLoads() throws IOException {
        List<String> loaded = every().stream().map(Script::name).sorted().collect(Collectors.toList());
        List<String> resources = new ArrayList<>(sources().keySet());
        resources.removeAll(PRELUDES);
        assertThat(resources).isEqualTo(loaded);
    }

    @Test
    void onlyThePreludesReadTheClockParseALockValueOrWriteAFence() throws IOException {
        for (Map.Entry<String, String> script : sources().entrySet()) {
            if (PRELUDES.contains(script.getKey())) {
                continue;
            }
            // Comments may name these; code may not.
            String code = script.getValue().lines().filter(line -> !line.strip().startsWith("--"))
                    .collect(Collectors.joining("\n"));
            assertThat(code).as(script.getKey())
                    .doesNotContain("'TIME'")
                    .doesNotContain("%d*):")
                    .doesNotContain("^(%d+)$")
                    .doesNotContain("%.0f")
                    .doesNotContain("WARDEN key")
                    .doesNotContain("replicate_commands")
                    .doesNotContain(":(%d+):(%d+):");
        }
    }

    /**
     * Redis 7.0 writes a number passed to a command with {@code '%.17g'}, which costs more than the command often does
     * (docs/bench/changes-measured.md): a constant argument is written as text, a computed one with int_text.
     */
    @Test
    void noScriptPassesANumberLiteralToACommand() throws IOException {
        Pattern literal = Pattern.compile("redis\\.p?call\\([^)]*,\\s*-?\\d+\\s*[,)]");
        for (Map.Entry<String, String> script : sources().entrySet()) {
            String code = script.getValue().replaceAll("--.*", "");
            Matcher found = literal.matcher(code);
            assertThat(found.find() ? found.group() : null).as(script.getKey()).isNull();
        }
    }

    @Test
    void everyScriptTakesFromThePreludesOnlyTheFunctionsItCalls() {
        Pattern function = Pattern.compile("^local function (\\w+)", Pattern.MULTILINE);
        for (Script script : every()) {
            String code = script.source().replaceAll("--.*", "");
            Matcher defined = function.matcher(code);
            while (defined.find()) {
                Matcher uses = Pattern.compile("(?<![\\w.])" + defined.group(1) + "\\(").matcher(code);
                int count = 0;
                while (uses.find()) {
                    count++;
                }
                // Once where it is defined, at least once where it is called.
                assertThat(count).as(script.name() + " calls " + defined.group(1)).isGreaterThan(1);
            }
        }
        assertThat(script("renew").source()).contains("local function held_by(").contains("local function now_ms(")
                .doesNotContain("local function parse(")
                .doesNotContain("board");
        assertThat(script("release-queued").source()).contains("local function board(")
                .contains("local function now_us(").doesNotContain("local function register(");
    }

    @Test
    void aRenewalBatchTakesOneLeaseForAllOrOneLeasePerKey() {
        Script renew = script("renew");
        String[] keys = {"renew:{a}", "renew:{b}", "renew:{c}"};
        server.call("SET", keys[0], "17:tokenA", "PX", "30000");
        server.call("SET", keys[1], "18:other", "PX", "30000");
        server.call("SET", keys[2], "19:tokenC", "PX", "30000");
        // One lease for the batch: every token follows it, and the key held by another keeps its expiry (30 s).
        List<Renewal<LockKeys>> same = List.of(renewal(keys[0], "tokenA", 60_000),
                renewal(keys[1], "tokenB", 60_000), renewal(keys[2], "tokenC", 60_000));
        String[] args = Scripts.renewedArgs(same);
        assertThat(args).containsExactly("60000", "tokenA", "tokenB", "tokenC");
        assertThat(eval(renew, keys, args)).isEqualTo(List.of(1L, 0L, 1L));
        assertThat(pttl(keys[0])).isBetween(50_000L, 60_000L);
        assertThat(pttl(keys[1])).isBetween(1L, 30_000L);
        assertThat(pttl(keys[2])).isBetween(50_000L, 60_000L);
        // Leases that differ: each key gets its own.
        List<Renewal<LockKeys>> mixed = List.of(renewal(keys[0], "tokenA", 200_000),
                renewal(keys[1], "tokenB", 300_000), renewal(keys[2], "tokenC", 400_000));
        args = Scripts.renewedArgs(mixed);
        assertThat(args).containsExactly("", "tokenA", "200000", "tokenB", "300000", "tokenC", "400000");
        assertThat(eval(renew, keys, args)).isEqualTo(List.of(1L, 0L, 1L));
        assertThat(pttl(keys[0])).isBetween(190_000L, 200_000L);
        assertThat(pttl(keys[1])).isBetween(1L, 30_000L);
        assertThat(pttl(keys[2])).isBetween(390_000L, 400_000L);
        server.call("DEL", keys[0], keys[1], keys[2]);
    }

    private static Renewal<LockKeys> renewal(String key, String token, long millis) {
        return new Renewal<>(new LockKeys(key), token, millis);
    }

    private static Object eval(Script script, String[] keys, String[] args) {
        List<String> command = new ArrayList<>(List.of("EVAL", script.source(), Integer.toString(keys.length)));
        command.addAll(List.of(keys));
        command.addAll(List.of(args));
        return server.call(command.toArray(String[]::new));
    }

    private static long pttl(String key) {
        return (Long) server.call("PTTL", key);
    }

    @Test
    void everyCommandAScriptCallsIsNamedInItsSourceButThePublishPassedIn() throws IOException {
        // Script.commandsAt relies on it to name the command an ACL refused inside a script.
        Pattern call = Pattern.compile("redis\\.p?call\\(\\s*([^,)]+)");
        int passedIn = 0;
        for (Map.Entry<String, String> script : sources().entrySet()) {
            Matcher m = call.matcher(script.getValue());
            while (m.find()) {
                String command = m.group(1);
                if (!command.matches("'[A-Z]+'")) {
                    passedIn++;
                    assertThat(command.equals("publish") || script.getValue().contains(command
                            + " the publish command")).as(script.getKey() + ": " + command).isTrue();
                }
            }
        }
        assertThat(passedIn).isEqualTo(7);
        Script release = script("release");
        List<String> lines = release.source().lines().collect(Collectors.toList());
        assertThat(release.commandsAt(lines.indexOf("    redis.call(publish, channel, message)") + 1, "SPUBLISH"))
                .hasValue("SPUBLISH");
        assertThat(release.commandsAt(lines.indexOf("  free(key, fence, retention)") + 1, "PUBLISH")).isEmpty();
        Script acquire = script("acquire");
        int both = acquire.source().lines().collect(Collectors.toList()).indexOf("if ARGV[3] == '2' and "
                + "redis.call('ZREM', KEYS[2], ARGV[1]) == 1 and redis.call('ZCARD', KEYS[2]) == 0 then");
        assertThat(acquire.commandsAt(both + 1, "PUBLISH")).hasValue("ZREM or ZCARD");
        assertThat(acquire.commandsAt(0, "PUBLISH")).isEmpty();
        assertThat(acquire.commandsAt(10_000, "PUBLISH")).isEmpty();
    }

    @Test
    void aScriptIsSentWithoutItsCommentsAndWithItsLinesWhereTheyWere() throws IOException {
        // The scripts that must keep their order go by EVAL, their whole text with every call.
        Script handed = script("share-handed");
        String resource = sources().get("share-handed");
        assertThat(handed.source()).doesNotContain("--").doesNotContainPattern("[ \\t]\n");
        assertThat(handed.source().length()).isLessThan(resource.length() + sources().get("share").length() / 2);
        // The script's own lines end the source as they end its resource, so Redis's line numbers still name them.
        List<String> sent = handed.source().lines().collect(Collectors.toList());
        List<String> own = resource.lines().map(line -> line.replaceAll("\\s*--.*", "")).collect(Collectors.toList());
        assertThat(sent.subList(sent.size() - own.size(), sent.size())).isEqualTo(own);
        for (Script script : every()) {
            assertThat(script.source()).as(script.name()).doesNotContain("--");
        }
    }

    @Test
    void theLockPreludeParsesEveryKindOfValue() {
        assertThat(parse("1732:tok")).containsExactly("1732", "tok");
        assertThat(parse(":tok")).containsExactly("", "tok");
        assertThat(parse("1732")).containsExactly("1732", "nil");
        assertThat(parse("")).containsExactly("nil", "nil");
        assertThat(parse("tok")).containsExactly("foreign");
        assertThat(parse("x1:tok")).containsExactly("foreign");
        assertThat(parse("12:")).containsExactly("foreign");
        String heldBy = "return held_by(ARGV[1] ~= '' and ARGV[1] or nil, ARGV[2]) and 1 or 0";
        assertThat(lock(heldBy, "1732:tok", "tok")).isEqualTo(1L);
        assertThat(lock(heldBy, ":tok", "tok")).isEqualTo(1L);
        assertThat(lock(heldBy, "1732:xtok", "tok")).isEqualTo(0L);
        assertThat(lock(heldBy, "1732", "tok")).isEqualTo(0L);
        assertThat(lock(heldBy, "tok", "tok")).isEqualTo(0L);
        assertThat(lock(heldBy, "", "tok")).isEqualTo(0L);
    }

    @Test
    void nextFenceRisesAboveTheLastAndTheServersClock() {
        List<?> time = (List<?>) server.call("TIME");
        long before = Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
        long fromNothing = Long.parseLong(lock("return fence_text(next_fence(tonumber(ARGV[1])))", "0").toString());
        assertThat(fromNothing).isGreaterThanOrEqualTo(before).isLessThan(before + 60_000_000L);
        // A last fence ahead of the clock (the clock went back, or a quorum agreed on a higher one) still rises,
        // by one, and is written in full, without an exponent.
        assertThat(lock("return fence_text(next_fence(tonumber(ARGV[1])))", "5000000000000000"))
                .isEqualTo("5000000000000001");
    }

    @Test
    void theQueuePreludeKeepsRegistrationsAndTheirOrder() {
        String script = "register('q', 'r', 'a', 3000, '250', '1', 'c1')\n"
                + "register('q', 'r', 'b', 3000, '250', '2', 'c2')\n"
                + "register('q', 'r', 'a', 3000, '300', '3', 'c1')\n"
                + "local live_until, grant, arm, client = parse_registration(redis.call('HGET', 'r', 'a'))\n"
                + "return {redis.call('ZRANGE', 'q', 0, -1), grant, arm, client,\n"
                + "  live(redis.call('HGET', 'r', 'a')) and 1 or 0, live('1:1:1:c') and 1 or 0,\n"
                + "  redis.call('PTTL', 'q') > 0 and 1 or 0}";
        @SuppressWarnings("unchecked")
        List<Object> reply = (List<Object>) queue(script);
        // Registering again renews the registration but keeps the waiter's place.
        assertThat(reply.get(0)).isEqualTo(List.of("a", "b"));
        assertThat(reply.subList(1, 4)).containsExactly("300", "3", "c1");
        assertThat(reply.subList(4, 7)).containsExactly(1L, 0L, 1L);
        server.call("DEL", "q", "r");
    }

    @Test
    void releasesDropExpiredWaitersOfLocksThatDoNotQueueAndWakeTheLiveOnes() {
        for (Script release : List.of(script("release"), script("release-queued"))) {
            server.call("FLUSHALL");
            server.call("SET", "lock", "17:holder");
            long ms = Long.parseLong((String) ((List<?>) server.call("TIME")).get(0)) * 1000;
            server.call("ZADD", "waiters", Long.toString(ms - 60_000), "gone", Long.toString(ms + 60_000), "live");
            String[] keys = release.name().equals("release") ? new String[] {"lock", "waiters"}
                    : new String[] {"lock", "waiters", "queue", "registrations"};
            List<String> command = new ArrayList<>(List.of("EVALSHA", release.sha(), Integer.toString(keys.length)));
            command.addAll(List.of(keys));
            command.addAll(List.of("holder", "60000", "wake", "client-1", "PUBLISH"));
            server.call("SCRIPT", "LOAD", release.source());
            assertThat(server.call(command.toArray(String[]::new))).as(release.name()).isEqualTo(1L);
            assertThat(server.call("GET", "lock")).as(release.name()).isEqualTo("17");
            assertThat(server.call("ZRANGE", "waiters", "0", "-1")).as(release.name()).isEqualTo(List.of("live"));
        }
        server.call("FLUSHALL");
    }

    private static Script script(String name) {
        return every().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private static List<Object> parse(String value) {
        return (List<Object>) lock("local fence, owner = parse(ARGV[1] ~= '' and ARGV[1] or nil)\n"
                + "if fence == false then return {'foreign'} end\n"
                + "return {tostring(fence), tostring(owner)}", value);
    }

    private static Object lock(String body, String... args) {
        return eval(prelude(Scripts.LOCK) + body, args);
    }

    private static Object queue(String body) {
        return eval(prelude(Scripts.LOCK) + prelude(Scripts.QUEUE) + body);
    }

    private static Object eval(String source, String... args) {
        List<String> command = new ArrayList<>(List.of("EVAL", source, "0"));
        command.addAll(List.of(args));
        return server.call(command.toArray(String[]::new));
    }

    private static String prelude(String name) {
        try {
            return Files.readString(RESOURCES.resolve(name + ".lua"), StandardCharsets.UTF_8) + "\n";
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static Map<String, String> sources() throws IOException {
        Map<String, String> sources = new TreeMap<>();
        try (Stream<Path> files = Files.list(RESOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".lua")).collect(Collectors.toList())) {
                String name = file.getFileName().toString();
                sources.put(name.substring(0, name.length() - 4), Files.readString(file, StandardCharsets.UTF_8));
            }
        }
        return sources;
    }

    /** The lock scripts and the shared locks' scripts. */
    private static List<Script> every() {
        List<Script> all = new ArrayList<>(Scripts.all());
        all.addAll(ShareScripts.all());
        return all;
    }
}
