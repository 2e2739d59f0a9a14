package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Identity;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.redisserver.LatencyProbe;
import dev.warden.redisserver.RedisCluster;
import dev.warden.redisserver.RedisServer;
import dev.warden.redisserver.RedisServerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code warden locks} as a real process against real servers: a server, a cluster, and 100,000 held locks. */
// Tagged "full": slow (processes against several servers); in `mvn -B verify -Pfull` and CI.
@Tag("full")
@Timeout(180)
class LocksIT {
    /**
     * A table row: the name (which may have spaces), kind, holder (a read-write lock's "3 read" has one), held for,
     * lease left, waiters, longest wait, fence, and who holds it (with spaces).
     */
    private static final Pattern ROW = Pattern.compile("^(.+?) +(lock|read-write|semaphore) +(\\d+ read|\\S+) +(\\S+) "
            + "+(\\S+) +(\\d+) +(\\S+) +(\\S+) +(-|.+ \\(.*\\)(?: and \\d+ more)?)$", Pattern.MULTILINE);
    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private RedisServer server;
    private LockClient client;

    @BeforeEach
    void connect() {
        server = REDIS.server();
        server.call("FLUSHALL");
        client = client(LockConfig.builder().redisUri(server.uri()));
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private LockClient client(LockConfig.Builder config) {
        LockClient created = LockClient.create(config.commandTimeout(Duration.ofSeconds(5)).build());
        resources.add(created);
        return created;
    }

    private Cli.Result locks(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("locks", "--redis", server.uri()));
        all.addAll(List.of(args));
        return Cli.run(all.toArray(String[]::new));
    }

    /**
     * The table's rows by name (a lock's), or by name and kind ("name [semaphore]"): each the row's columns after
     * the kind, in order.
     */
    private static Map<String, List<String>> rows(Cli.Result result) {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        Matcher m = ROW.matcher(result.out());
        while (m.find()) {
            rows.put(m.group(2).equals("lock") ? m.group(1) : m.group(1) + " [" + m.group(2) + "]", List.of(m.group(3),
                    m.group(4), m.group(5), m.group(6), m.group(7), m.group(8), m.group(9)));
        }
        return rows;
    }

    @Test
    void heldLocksAndWaitedForLocksAreListedWithTheirFieldsTheLongestWaitFirst() throws Exception {
        Lease fenced = client.lock("orders:42").tryAcquire(Duration.ZERO, Duration.ofSeconds(50)).orElseThrow();
        long fence = fenced.fencingToken();
        client.lock("jobs:{7}").tryAcquire(Duration.ZERO, Duration.ofSeconds(40)).orElseThrow();
        Lease released = client.lock("released").tryAcquire().orElseThrow();
        released.fencingToken();
        released.release();
        client.lock("reports").tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
        LockClient other = client(LockConfig.builder().redisUri(server.uri()));
        CompletableFuture<Optional<Lease>> waiting = other.lock("reports").tryAcquireAsync(Duration.ofSeconds(60));
        Await.eventually(Duration.ofSeconds(10), () -> client.lock("reports").inspect().waiters() > 0
                && client.lock("orders:42").inspect().holderIdentity().flatMap(Identity::threadName).isPresent());

        Cli.Result result = locks();

        assertThat(result.exit()).as("%s", result).isZero();
        assertThat(result.err()).as("%s", result).isEmpty();
        assertThat(result.out())
                .startsWith("NAME       KIND        HOLDER     HELD FOR  LEASE LEFT  WAITERS  LONGEST WAIT  FENCE"
                        + "             HELD BY\n");
        Map<String, List<String>> rows = rows(result);
        // The waited-for lock first; then by lease left, the longest first. The free lock is not listed.
        assertThat(rows.keySet()).as("%s", result).containsExactly("reports", "orders:42", "jobs:{7}");
        String token = ((String) server.call("GET", "warden:{orders:42}")).replaceAll("^\\d*:", "");
        List<String> orders = rows.get("orders:42");
        assertThat(orders.get(0)).isEqualTo(token.substring(0, 8));
        assertThat(orders.get(1)).matches("\\d+ms|\\d+\\.\\ds");
        assertThat(orders.get(2)).matches("4\\d\\.\\ds|50\\.0s");
        assertThat(orders.get(3)).isEqualTo("0");
        assertThat(orders.get(4)).isEqualTo("-");
        assertThat(orders.get(5)).isEqualTo(Long.toString(fence));
        // Who holds it: the client's default name and tag, this host, this process and this thread.
        assertThat(orders.get(6)).matches("warden-[A-Za-z0-9_-]{6} \\(.+, pid " + ProcessHandle.current().pid()
                + ", thread " + Pattern.quote(Thread.currentThread().getName()) + "\\)");
        List<String> jobs = rows.get("jobs:{7}");
        assertThat(jobs.get(1)).as("no fence, no hold time").isEqualTo("-");
        assertThat(jobs.get(5)).isEqualTo("-");
        List<String> reports = rows.get("reports");
        assertThat(reports.get(3)).isEqualTo("1");
        assertThat(reports.get(4)).matches("\\d+ms|\\d+\\.\\ds");
        assertThat(result.out()).contains("3 locks held or waited for under prefix 'warden:' matching '*'");

        Cli.Result inspect = Cli.run("inspect", "reports", "--redis", server.uri());
        assertThat(inspect.out()).contains("holder:        " + reports.get(0)).containsPattern("longest wait:  \\d")
                .contains("held by:       " + reports.get(6) + "\n")
                .containsPattern("waiters:       1\\R  1\\.  +warden-[A-Za-z0-9_-]{6} \\(.+, pid \\d+, thread ");
        waiting.cancel(true);
    }

    @Test
    @SuppressWarnings("unchecked")
    void readWriteLocksAndSemaphoresAreListedBesideLocksWithWhoHoldsThem() throws Exception {
        client.lock("orders").tryAcquire().orElseThrow();
        client.readWriteLock("orders").readLock().tryAcquire().orElseThrow();
        client.readWriteLock("orders").readLock().tryAcquire().orElseThrow();
        client.readWriteLock("catalog").writeLock().tryAcquire().orElseThrow();
        client.semaphore("pool", 3).tryAcquire(2).orElseThrow();
        client.semaphore("idle", 3).tryAcquire(1).orElseThrow().close();
        LockClient other = client(LockConfig.builder().redisUri(server.uri()));
        CompletableFuture<Optional<Lease>> waiting = other.semaphore("pool", 3).tryAcquireAsync(2,
                Duration.ofSeconds(60));
        Await.eventually(Duration.ofSeconds(10), () -> client.semaphore("pool", 3).inspect().waiters() > 0
                && client.readWriteLock("catalog").inspect().writer().flatMap(Identity::threadName).isPresent());

        Cli.Result result = locks();

        assertThat(result.exit()).as("%s", result).isZero();
        Map<String, List<String>> rows = rows(result);
        // The waited-for semaphore first; the idle semaphore is not listed.
        assertThat(rows.keySet()).as("%s", result).containsExactlyInAnyOrder("pool [semaphore]", "orders",
                "orders [read-write]", "catalog [read-write]");
        assertThat(rows.keySet().iterator().next()).isEqualTo("pool [semaphore]");
        String thread = Pattern.quote(Thread.currentThread().getName());
        assertThat(rows.get("pool [semaphore]")).startsWith("2/3").contains("1")
                .last().asString().matches("warden-\\S+ \\(.+, thread " + thread + "\\)");
        assertThat(rows.get("orders [read-write]").get(0)).isEqualTo("2 read");
        assertThat(rows.get("orders [read-write]").get(6)).endsWith("thread " + Thread.currentThread().getName()
                + ") and 1 more");
        assertThat(rows.get("catalog [read-write]").get(0)).isEqualTo("write");
        assertThat(rows.get("catalog [read-write]").get(5)).matches("\\d{16}");
        assertThat(result.out()).contains("4 locks held or waited for");

        Map<String, Object> doc = (Map<String, Object>) Json.parse(locks("--json").out());
        List<Map<String, Object>> locks = (List<Map<String, Object>>) doc.get("locks");
        assertThat(locks).extracting(l -> l.get("kind") + " " + l.get("name")).containsExactlyInAnyOrder(
                "semaphore pool", "lock orders", "read-write orders", "read-write catalog");
        Map<String, Object> pool = locks.stream().filter(l -> l.get("name").equals("pool")).findFirst().orElseThrow();
        assertThat(pool).containsEntry("permits", 3L).containsEntry("available", 1L).containsEntry("waiters", 1L)
                .containsEntry("holders", 1L);
        assertThat((List<Object>) pool.get("holding")).hasSize(1);
        assertThat((List<Object>) pool.get("waiting")).hasSize(1);
        assertThat((Long) pool.get("longestWaitMillis")).isNotNull();

        Cli.Result inspect = Cli.run("inspect", "orders", "--redis", server.uri());
        assertThat(inspect.out()).as("%s", inspect).containsPattern("readers:       2\\R  1\\.  +warden-\\S+ \\(.+, "
                + "thread " + thread + "\\)\\R  2\\.  ");
        Cli.Result pools = Cli.run("inspect", "pool", "--redis", server.uri());
        assertThat(pools.out()).as("%s", pools).containsPattern("1 of 3 permits free, 1 holder\\R  1\\.  +warden-")
                .containsPattern("waiters:       1\\R  1\\.  +warden-");
        waiting.cancel(true);
    }

    @Test
    void thePatternIsAGlobOverNamesBracesIncluded() throws Exception {
        for (String name : List.of("orders:1", "orders:22", "jobs:{7}", "jobs:{8}x", "other")) {
            client.lock(name).tryAcquire().orElseThrow();
        }
        assertThat(rows(locks("orders:*")).keySet()).containsExactlyInAnyOrder("orders:1", "orders:22");
        assertThat(rows(locks("orders:?")).keySet()).containsExactly("orders:1");
        assertThat(rows(locks("jobs:{?}")).keySet()).containsExactly("jobs:{7}");
        assertThat(rows(locks("jobs:{*")).keySet()).containsExactlyInAnyOrder("jobs:{7}", "jobs:{8}x");
        Cli.Result none = locks("nothing*");
        assertThat(none.exit()).isZero();
        assertThat(none.out()).isEqualTo("0 locks held or waited for under prefix 'warden:' matching 'nothing*' "
                + none.out().substring(none.out().indexOf("(read in")));
        Cli.Result bad = locks("orders:[1");
        assertThat(bad.exit()).as("%s", bad).isEqualTo(ExitCodes.USAGE);
        assertThat(bad.err()).contains("[ has no ]");
    }

    @Test
    void namesWithGlobCharactersAndSpacesAreNamesThatLiteralAndBackslashesMatchExactly() throws Exception {
        // The library takes any name; so does the command line, and "orders:*" is then a name, not a glob.
        Cli.Result run = Cli.run("run", "orders:*", "--redis", server.uri(), "--", "sh", "-c", "echo $WARDEN_LOCK");
        assertThat(run.exit()).as("%s", run).isZero();
        assertThat(run.out()).isEqualTo("orders:*\n");
        for (String name : List.of("orders:*", "orders:1", "orders 2", "orders:[x]", "orders:\\")) {
            client.lock(name).tryAcquire().orElseThrow();
        }
        assertThat(rows(locks("orders:*")).keySet()).as("a glob")
                .containsExactlyInAnyOrder("orders:*", "orders:1", "orders:[x]", "orders:\\");
        assertThat(rows(locks("orders:\\*")).keySet()).containsExactly("orders:*");
        assertThat(rows(locks("orders:\\[x]")).keySet()).containsExactly("orders:[x]");
        for (String name : List.of("orders:*", "orders:[x]", "orders 2", "orders:\\")) {
            Cli.Result literal = locks("--literal", name);
            assertThat(rows(literal).keySet()).as("%s", literal).containsExactly(name);
        }
        Cli.Result none = locks("--literal", "orders:?");
        assertThat(none.exit()).as("%s", none).isZero();
        assertThat(none.out()).startsWith("0 locks held");
        assertThat(locks("--literal").exit()).as("--literal needs a name").isEqualTo(ExitCodes.USAGE);

        Cli.Result inspect = Cli.run("inspect", "orders 2", "--redis", server.uri());
        assertThat(inspect.out()).as("%s", inspect).contains("lock:          orders 2\n")
                .contains("state:         held");
        Cli.Result release = Cli.run("release", "orders:*", "--redis", server.uri(), "--force");
        assertThat(release.exit()).as("%s", release).isZero();
        assertThat(rows(locks("orders:*")).keySet()).containsExactlyInAnyOrder("orders:1", "orders:[x]", "orders:\\");
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonIsOneParseableDocumentWithEveryField() throws Exception {
        Lease lease = client.lock("json \"quoted\"\n").tryAcquire(Duration.ZERO, Duration.ofSeconds(20)).orElseThrow();
        long fence = lease.fencingToken();
        client.lock("unfenced").tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        Cli.Result result = locks("--json");
        assertThat(result.exit()).as("%s", result).isZero();
        Map<String, Object> doc = (Map<String, Object>) Json.parse(result.out());
        assertThat(doc).containsEntry("prefix", "warden:").containsEntry("pattern", "*").containsEntry("count", 2L)
                .containsEntry("limitReached", false).containsKeys("at", "tookMillis");
        List<Map<String, Object>> locks = (List<Map<String, Object>>) doc.get("locks");
        assertThat(locks).hasSize(2);
        Map<String, Object> first = locks.get(0);
        assertThat(first).containsEntry("name", "json \"quoted\"\n").containsEntry("held", true)
                .containsEntry("waiters", 0L).containsEntry("longestWaitMillis", null)
                .containsEntry("fence", fence);
        assertThat((String) first.get("holder")).hasSize(8);
        assertThat((Map<String, Object>) first.get("heldBy")).containsEntry("clientName", "warden")
                .containsEntry("pid", ProcessHandle.current().pid())
                .containsEntry("threadId", Thread.currentThread().getId()).containsKeys("client", "host", "thread");
        assertThat(first.get("waiting")).isEqualTo(List.of());
        assertThat((Long) first.get("leaseLeftMillis")).isBetween(10_000L, 20_000L);
        assertThat((Long) first.get("heldForMillis")).isBetween(0L, 10_000L);
        assertThat(locks.get(1)).containsEntry("name", "unfenced").containsEntry("fence", null)
                .containsEntry("heldForMillis", null);
    }

    @Test
    void watchOffATerminalPrintsPlainListingsAndStopsAfterCount() throws Exception {
        client.lock("watched").tryAcquire().orElseThrow();
        long start = System.nanoTime();
        Cli.Result result = locks("--watch", "--count", "3", "--interval", "300ms");
        long took = System.nanoTime() - start;
        assertThat(result.exit()).as("%s", result).isZero();
        assertThat(result.out()).doesNotContain("\u001b");
        assertThat(result.out().split("1 lock held or waited for", -1)).hasSize(4);
        assertThat(rows(result)).containsOnlyKeys("watched");
        assertThat(Duration.ofNanos(took)).isGreaterThan(Duration.ofMillis(600));
        Cli.Result json = locks("--watch", "--count", "2", "--interval", "200ms", "--json");
        assertThat(json.out().lines()).hasSize(2).allSatisfy(line -> assertThat(Json.parse(line)).isNotNull());
    }

    @Test
    void watchOnATerminalRedrawsInPlace() throws Exception {
        client.lock("on-a-terminal").tryAcquire().orElseThrow();
        Path script = Path.of("/usr/bin/script");
        assertThat(Files.isExecutable(script)).as("util-linux script(1), which gives the command a terminal")
                .isTrue();
        String command = String.join(" ", Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", Cli.JAR.toAbsolutePath().toString(), "locks", "--redis", server.uri(), "--watch",
                "--count", "2", "--interval", "200ms");
        Process process = new ProcessBuilder(script.toString(), "-q", "-e", "-c", command, "/dev/null")
                .redirectErrorStream(true).start();
        process.getOutputStream().close();
        byte[] output = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(output, java.nio.charset.StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(out).isZero();
        // Cleared once, then each frame drawn from the top left over the last.
        assertThat(out).startsWith("\u001b[H\u001b[2J\u001b[H");
        assertThat(out.split("\u001b\\[H", -1)).as(out).hasSize(4);
        assertThat(out).contains("warden locks: every 200ms, Ctrl-C to stop").contains("on-a-terminal")
                .contains("\u001b[K").contains("\u001b[J");
    }

    @Test
    void usageErrorsAndAnUnreachableServerHaveTheirExitCodes() throws Exception {
        assertThat(locks("--count", "2").exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(locks("--watch", "--interval", "10ms").exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(locks("--limit", "0").exit()).isEqualTo(ExitCodes.USAGE);
        Cli.Result down = Cli.run("locks", "--redis", "redis://127.0.0.1:1", "--timeout", "1s");
        assertThat(down.exit()).as("%s", down).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
    }

    @Test
    void onAClusterEveryMasterIsScanned() throws Exception {
        RedisCluster cluster = RedisCluster.start(3);
        resources.add(cluster);
        LockClient clustered = client(LockConfig.builder().cluster(cluster.seedUri()));
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            names.add("spread-" + i);
            clustered.lock("spread-" + i).tryAcquire().orElseThrow();
        }
        for (RedisServer node : cluster.nodes()) {
            assertThat((Long) node.call("DBSIZE")).as("keys on port %d", node.port()).isPositive();
        }
        String seeds = cluster.nodes().get(1).uri() + "," + cluster.nodes().get(2).uri();
        Cli.Result result = Cli.run("locks", "--cluster", "--redis", seeds, "spread-*");
        assertThat(result.exit()).as("%s", result).isZero();
        assertThat(rows(result).keySet()).as("%s", result).containsExactlyInAnyOrderElementsOf(names);
    }

    /**
     * 100,000 held locks, as keys held locks leave, listed as JSON by the command: its time, JVM start included,
     * and the round trips of a concurrent PING meanwhile.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aHundredThousandHeldLocksAreListedWithoutBlockingRedis() throws Exception {
        int held = 100_000;
        String script = "for i = tonumber(ARGV[1]), tonumber(ARGV[2]) do "
                + "redis.call('SET', 'warden:{bulk-' .. i .. '}', ':' .. string.format('%022d', i), 'PX', 600000) end";
        for (int from = 0; from < held; from += 10_000) {
            server.call("EVAL", script, "0", Integer.toString(from), Integer.toString(from + 9_999));
        }
        long idleMax;
        try (LatencyProbe idle = LatencyProbe.start(server)) {
            // The test's intent: the server's latency over a second idle, against which the listing's is compared.
            Thread.sleep(1_000);
            idle.stop();
            idleMax = idle.maxMicros();
        }
        Cli.Result result;
        long took;
        try (LatencyProbe ping = LatencyProbe.start(server)) {
            long start = System.nanoTime();
            result = locks("--json", "--limit", "1000000");
            took = System.nanoTime() - start;
            ping.stop();
            Map<String, Object> doc = (Map<String, Object>) Json.parse(result.out());
            String report = String.format("warden locks --json with %,d held locks: %,d ms in all, %,d ms "
                            + "listing (as the command measured it), %,d bytes of JSON; a concurrent PING every ~1 ms: "
                            + "p99 %,d us, max %,d us (idle: max %,d us)", held, TimeUnit.NANOSECONDS.toMillis(took),
                    doc.get("tookMillis"), result.out().length(), ping.percentileMicros(99), ping.maxMicros(), idleMax);
            System.out.println(report);
            assertThat(result.exit()).as("%s", report).isZero();
            assertThat(doc).as(report).containsEntry("count", (long) held).containsEntry("limitReached", false);
            assertThat((List<Object>) doc.get("locks")).hasSize(held);
            assertThat(Duration.ofNanos(took)).as(report).isLessThan(Duration.ofSeconds(30));
            assertThat(ping.maxMicros()).as(report).isLessThan(1_000_000L);
        }
    }
}
