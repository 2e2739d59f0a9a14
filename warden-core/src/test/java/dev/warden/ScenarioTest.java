package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.redisserver.Resp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scenarios from the design notes, end to end against a real server. */
class ScenarioTest extends RedisTestSupport {

    @Test
    void hundredThreadsCompeteForTenPrizesAndExactlyTenWin() throws Exception {
        String name = uniqueName();
        server.call("SET", "prizes", "10");
        List<LockClient> clients = List.of(client(), client(), client(), client());
        ExecutorService pool = Executors.newFixedThreadPool(100);
        AtomicInteger winners = new AtomicInteger();
        AtomicInteger emptyPool = new AtomicInteger();
        AtomicLong lowest = new AtomicLong(Long.MAX_VALUE);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                DistributedLock lock = clients.get(i % clients.size()).lock(name);
                results.add(pool.submit(() -> {
                    start.await();
                    Optional<Lease> lease = lock.tryAcquire(Duration.ofSeconds(60));
                    if (lease.isEmpty()) {
                        return false;
                    }
                    try (Lease held = lease.get(); Resp resp = new Resp(server.host(), server.port(),
                            Duration.ofSeconds(5))) {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        long left = Long.parseLong((String) resp.call("GET", "prizes"));
                        if (left > 0) {
                            resp.call("SET", "prizes", Long.toString(left - 1));
                            lowest.accumulateAndGet(left - 1, Math::min);
                            winners.incrementAndGet();
                        } else {
                            emptyPool.incrementAndGet();
                        }
                        inside.decrementAndGet();
                        assertThat(held.isHeld()).isTrue();
                    }
                    return true;
                }));
            }
            start.countDown();
            for (Future<Boolean> result : results) {
                assertThat(result.get(90, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(winners).hasValue(10);
        assertThat(emptyPool).hasValue(90);
        assertThat(overlaps).hasValue(0);
        assertThat(server.call("GET", "prizes")).isEqualTo("0");
        assertThat(lowest).hasValue(0);
    }

    @Test
    void threeJvmsIncrementAFileCounterUnderTheLockExactly(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("counter");
        Files.writeString(file, "0 0", StandardCharsets.UTF_8);
        String name = uniqueName();
        int processes = 3;
        int iterations = 40;
        List<Process> workers = new ArrayList<>();
        for (int i = 0; i < processes; i++) {
            workers.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"),
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                    FileCounterWorker.class.getName(), server.uri(), file.toString(),
                    Integer.toString(iterations), name)
                    .redirectErrorStream(true).redirectOutput(dir.resolve("worker-" + i + ".log").toFile())
                    .start());
        }
        for (int i = 0; i < processes; i++) {
            Process worker = workers.get(i);
            assertThat(worker.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(worker.exitValue()).as(log(dir.resolve("worker-" + i + ".log"))).isZero();
        }
        String[] state = Files.readString(file, StandardCharsets.UTF_8).split(" ");
        assertThat(Long.parseLong(state[0])).isEqualTo((long) processes * iterations);
        assertThat(Long.parseLong(state[1])).isEqualTo(client().lock(name).inspect().lastFencingToken());
    }

    @Test
    void uncontendedLockAndUnlockCostOneScriptEachAndNoPublish() {
        DistributedLock lock = client().lock(uniqueName());
        lock.tryAcquire().orElseThrow().release();
        server.call("CONFIG", "RESETSTAT");
        for (int i = 0; i < 100; i++) {
            Lease lease = lock.tryAcquire().orElseThrow();
            lease.release();
        }
        String stats = (String) server.call("INFO", "commandstats");
        // INFO counts the commands scripts run too (a try reads the queue's head, a release pops it): everything the
        // client sent itself is a script call.
        List<String> topLevel = stats.lines().filter(l -> l.startsWith("cmdstat_"))
                .map(l -> l.substring("cmdstat_".length(), l.indexOf(':')))
                .filter(c -> !List.of("get", "set", "del", "pttl", "exists", "time", "zrange", "zpopmin", "evalsha")
                        .contains(c))
                .filter(c -> !c.startsWith("config"))
                .toList();
        assertThat(calls("evalsha")).as("%s", stats).isEqualTo(200);
        assertThat(topLevel).as("%s", stats).isEmpty();
    }

    @Test
    void uncontendedAcquireAndReleaseCostOneSetNxAndOneScriptWithoutReadingTheClock() throws InterruptedException {
        // Its identity record written first (a SET from the client's scheduler), so that no SET but the tries counts.
        DistributedLock lock = recorded(client()).lock(uniqueName());
        lock.acquire().release();
        server.call("CONFIG", "RESETSTAT");
        for (int i = 0; i < 100; i++) {
            lock.acquire().release();
        }
        String stats = (String) server.call("INFO", "commandstats");
        // The acquire is the plain SET; the release script reads the key, checks for waiters and deletes it.
        assertThat(calls("set")).as("%s", stats).isEqualTo(100);
        assertThat(calls("evalsha")).as("%s", stats).isEqualTo(100);
        assertThat(calls("del")).as("%s", stats).isEqualTo(100);
        assertThat(calls("time") + calls("publish")).as("%s", stats).isZero();
    }

    private static String log(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
