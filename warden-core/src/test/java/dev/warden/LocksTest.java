package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.redisserver.LatencyProbe;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link LockClient#locks(String, int)} against a real server: which locks it lists and with what, the glob over
 * names (braces included), the limit, the async form, and the keys it must pass over.
 */
@Timeout(60)
class LocksTest extends RedisTestSupport {

    private static Map<String, LockInfo> byName(List<LockInfo> locks) {
        return locks.stream().collect(Collectors.toMap(LockInfo::name, Function.identity()));
    }

    @Test
    void heldLocksAndLocksWithWaitersAreListedWithTheirStateAndFreeOnesAreNot() throws Exception {
        LockClient client = client();
        LockClient other = client();
        Lease fenced = client.lock("fenced").tryAcquire(Duration.ZERO, Duration.ofSeconds(40)).orElseThrow();
        long fence = fenced.fencingToken();
        Lease unfenced = client.lock("unfenced").tryAcquire(Duration.ZERO, Duration.ofSeconds(20)).orElseThrow();
        // Free with its fencing counter kept: the key exists, the lock is not held.
        Lease released = client.lock("released").tryAcquire().orElseThrow();
        released.fencingToken();
        assertThat(released.release()).isTrue();
        assertThat(server.call("EXISTS", "test:{released}")).isEqualTo(1L);
        // Contended: a waiter of another client queues behind the holder.
        Lease contended = client.lock("contended").tryAcquire().orElseThrow();
        CompletableFuture<Optional<Lease>> waiter = other.lock("contended").tryAcquireAsync(Duration.ofSeconds(30));
        assertThat(eventually(Duration.ofSeconds(5), () -> client.lock("contended").inspect().waiters() == 1))
                .isTrue();
        // The test's intent: the holds and the wait last at least 300 ms, which the listing must show.
        Thread.sleep(300);

        List<LockInfo> locks = other.locks("*");

        assertThat(locks).extracting(LockInfo::name).containsExactly("contended", "fenced", "unfenced");
        Map<String, LockInfo> found = byName(locks);
        LockInfo f = found.get("fenced");
        assertThat(f.held()).isTrue();
        assertThat(f.remainingLease()).isBetween(Duration.ofSeconds(30), Duration.ofSeconds(40));
        assertThat(f.lastFencingToken()).isEqualTo(fence);
        assertThat(f.waiters()).isZero();
        assertThat(f.longestWait()).isEmpty();
        String token = ((String) server.call("GET", "test:{fenced}")).replaceAll("^\\d*:", "");
        assertThat(f.holder()).contains(token.substring(0, 8));
        // Held since its fence was issued, at the acquire: at least the 300 ms slept above.
        assertThat(f.heldFor()).hasValueSatisfying(d -> assertThat(d)
                .isBetween(Duration.ofMillis(250), Duration.ofSeconds(20)));
        LockInfo u = found.get("unfenced");
        assertThat(u.held()).isTrue();
        assertThat(u.lastFencingToken()).isZero();
        assertThat(u.heldFor()).as("no fence, no hold time").isEmpty();
        assertThat(u.holder()).isPresent().isNotEqualTo(f.holder());
        LockInfo c = found.get("contended");
        assertThat(c.waiters()).isEqualTo(1);
        assertThat(c.longestWait()).hasValueSatisfying(d -> assertThat(d)
                .isBetween(Duration.ofMillis(250), Duration.ofSeconds(20)));
        // Inspect reads the same script.
        assertThat(other.lock("contended").inspect().longestWait()).isPresent();
        assertThat(other.lock("released").inspect().held()).isFalse();

        contended.release();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isPresent();
        waiter.get().get().release();
        fenced.release();
        unfenced.release();
        assertThat(other.locks("*")).isEmpty();
    }

    @Test
    void aLockWhoseHolderExpiredButWhoseWaitersWaitIsListedAsFreeWithWaiters() throws Exception {
        LockClient client = client();
        // A released lock keeps its counter; a waiter registered on it (as a try racing the release leaves it) is
        // listed though nobody holds the lock.
        Lease lease = client.lock("queued").tryAcquire().orElseThrow();
        lease.fencingToken();
        lease.release();
        long nowMillis = Long.parseLong(((List<?>) server.call("TIME")).get(0).toString()) * 1000;
        server.call("ZADD", "test:{queued}:q", Long.toString(nowMillis * 1000 - 2_000_000), "waiter-token");
        server.call("HSET", "test:{queued}:r", "waiter-token", (nowMillis + 60_000) + ":30000:1:some-client");
        LockInfo info = client.locks("*").get(0);
        assertThat(info.name()).isEqualTo("queued");
        assertThat(info.held()).isFalse();
        assertThat(info.holder()).isEmpty();
        assertThat(info.remainingLease()).isZero();
        assertThat(info.waiters()).isEqualTo(1);
        assertThat(info.longestWait()).hasValueSatisfying(d -> assertThat(d)
                .isBetween(Duration.ofMillis(1900), Duration.ofSeconds(10)));
    }

    @Test
    void theGlobMatchesNamesBracesAndPercentSignsIncluded() {
        LockClient client = client();
        List<String> names = List.of("job-{7}a", "job-{7}b", "job-7", "50%", "orders:1", "orders:22", "x*y", "x-y",
                "{", "émoji-✓");
        for (String name : names) {
            client.lock(name).tryAcquire().orElseThrow();
        }
        assertThat(client.locks("*")).extracting(LockInfo::name).containsExactlyInAnyOrderElementsOf(names);
        assertThat(client.locks("job-{7}*")).extracting(LockInfo::name).containsExactly("job-{7}a", "job-{7}b");
        assertThat(client.locks("job-?")).extracting(LockInfo::name).containsExactly("job-7");
        assertThat(client.locks("job-{?}?")).extracting(LockInfo::name).containsExactly("job-{7}a", "job-{7}b");
        assertThat(client.locks("*%")).extracting(LockInfo::name).containsExactly("50%");
        assertThat(client.locks("orders:?")).extracting(LockInfo::name).containsExactly("orders:1");
        assertThat(client.locks("orders:[0-9][0-9]")).extracting(LockInfo::name).containsExactly("orders:22");
        assertThat(client.locks("x\\*y")).extracting(LockInfo::name).containsExactly("x*y");
        assertThat(client.locks("x[^*]y")).extracting(LockInfo::name).containsExactly("x-y");
        assertThat(client.locks("{")).extracting(LockInfo::name).containsExactly("{");
        assertThat(client.locks("émoji-?")).extracting(LockInfo::name).containsExactly("émoji-✓");
        assertThat(client.locks("nothing*")).isEmpty();
        assertThatThrownBy(() -> client.locks("orders:[12")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[ has no ]");
        assertThatThrownBy(() -> client.locks("trailing\\")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.locks("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.locks(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void keysThatAreNotAMutexsLockKeyArePassedOver() {
        LockClient client = client();
        client.lock("real").tryAcquire().orElseThrow();
        // Other lock kinds' keys, a mutex's other keys, another prefix, keys that are no escaped name, and a value
        // Warden did not write.
        server.call("SET", "test:{real}:s", "1");
        server.call("SET", "test:{sem}:s", ":token");
        server.call("SET", "test:{rw}:rw", ":token");
        server.call("SET", "other:{real2}", ":token");
        server.call("SET", "test:{bad%}", ":token");
        server.call("SET", "test:{a}b}", ":token");
        server.call("SET", "test:noTag", ":token");
        server.call("SET", "test:{junk}", "hello");
        server.call("HSET", "test:{hash}", "a", "b");
        assertThat(client.locks("*")).extracting(LockInfo::name).containsExactly("real");
    }

    @Test
    void theLimitBoundsTheListAndTheListIsSortedAndImmutable() {
        LockClient client = client();
        for (int i = 0; i < 30; i++) {
            client.lock(String.format("many-%02d", i)).tryAcquire().orElseThrow();
        }
        List<LockInfo> ten = client.locks("many-*", 10);
        assertThat(ten).hasSize(10).isSortedAccordingTo((a, b) -> a.name().compareTo(b.name()));
        assertThatThrownBy(() -> ten.add(ten.get(0))).isInstanceOf(UnsupportedOperationException.class);
        assertThat(client.locks("many-*", 30)).hasSize(30);
        assertThat(client.locks("many-*")).hasSize(30);
        assertThatThrownBy(() -> client.locks("*", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
    }

    @Test
    void theAsyncFormCompletesOffTheIoThreadsAndAClosedClientRefuses() throws Exception {
        LockClient client = client();
        client.lock("async").tryAcquire().orElseThrow();
        CompletableFuture<String> thread = client.locksAsync("*", 100)
                .thenApply(locks -> locks.get(0).name() + " on " + Thread.currentThread().getName());
        assertThat(thread.get(10, TimeUnit.SECONDS)).startsWith("async on ").doesNotContain("lettuce");
        assertThatThrownBy(() -> client.locksAsync("[", 1)).isInstanceOf(IllegalArgumentException.class);
        LockClient closed = client();
        closed.close();
        assertThatThrownBy(() -> closed.locks("*")).isInstanceOf(IllegalStateException.class);
        CompletableFuture<List<LockInfo>> refused = closed.locksAsync("*", 10);
        assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
    }

    /**
     * Keys as held locks leave them, {@code ":<token>"} with a lease, made by a script in batches of 10,000 (each
     * about 10 ms of Redis's time); then {@code free} keys as free locks leave them, a fencing counter.
     */
    static void makeLocks(String prefix, int held, int free) {
        String script = "for i = tonumber(ARGV[1]), tonumber(ARGV[2]) do "
                + "redis.call('SET', ARGV[3] .. i .. '}', ARGV[4] .. string.format('%022d', i), 'PX', 600000) end";
        int from = 0;
        while (from < held + free) {
            int to = Math.min(from < held ? held : held + free, from + 10_000);
            server.call("EVAL", script, "0", Integer.toString(from), Integer.toString(to - 1), prefix + "{bulk-",
                    from < held ? ":" : "");
            from = to;
        }
    }

    /**
     * The figures for a listing of 100,000 held locks: its time, Redis's time per command (INFO commandstats), the
     * commands that took Redis 1 ms or more (SLOWLOG), and the round trips of a concurrent PING, against the same
     * PING while nothing else runs. Timing bounds are loose, since the test machine may be shared: what must hold
     * whatever the load is that Redis is read in pages (SCAN, never KEYS) and by short commands.
     */
    @Test
    @Timeout(120)
    void aHundredThousandHeldLocksAreListedInSecondsWithoutBlockingRedis() throws Exception {
        int held = 100_000;
        makeLocks("test:", held, 20_000);
        LockClient client = client(b -> b.commandTimeout(Duration.ofSeconds(5)));
        long idleP99;
        long idleMax;
        try (LatencyProbe idle = LatencyProbe.start(server)) {
            // The test's intent: the server's latency over 2 s idle, against which the listing's is compared.
            Thread.sleep(2_000);
            idle.stop();
            idleP99 = idle.percentileMicros(99);
            idleMax = idle.maxMicros();
        }
        // Every command that takes Redis 1 ms or more goes to the slow log.
        server.call("CONFIG", "SET", "slowlog-log-slower-than", "1000");
        server.call("CONFIG", "SET", "slowlog-max-len", "10000");
        server.call("SLOWLOG", "RESET");
        server.call("CONFIG", "RESETSTAT");
        try (LatencyProbe ping = LatencyProbe.start(server)) {
            long start = System.nanoTime();
            List<LockInfo> locks = client.locks("*", 1_000_000);
            long elapsed = System.nanoTime() - start;
            ping.stop();
            List<?> slow = (List<?>) server.call("SLOWLOG", "GET", "10000");
            long slowest = slow.stream().mapToLong(entry -> (Long) ((List<?>) entry).get(2)).max().orElse(0);
            String report = String.format("listing %,d held locks among %,d keys took %,d ms; Redis ran %,d SCAN "
                            + "(%,d us each on average) and %,d EVALSHA (%,d us each), %,d ms in all; commands of 1 ms "
                            + "or more: %d, the longest %,d us; a concurrent PING every ~1 ms: %,d sent, p99 %,d us, "
                            + "max %,d us (while idle: p99 %,d us, max %,d us)",
                    held, held + 20_000, TimeUnit.NANOSECONDS.toMillis(elapsed), calls("scan"), usecPerCall("scan"),
                    calls("evalsha"), usecPerCall("evalsha"), (usec("scan") + usec("evalsha")) / 1000, slow.size(),
                    slowest, ping.count(), ping.percentileMicros(99), ping.maxMicros(), idleP99, idleMax);
            System.out.println(report);
            assertThat(locks).as(report).hasSize(held).allMatch(LockInfo::held);
            assertThat(calls("keys")).as(report).isZero();
            assertThat(calls("scan")).as("pages of about 1,000 keys: %s", report).isBetween(100L, 1_000L);
            assertThat(calls("evalsha")).as("one inspect per lock key: %s", report).isEqualTo(held + 20_000L);
            assertThat(usecPerCall("scan")).as(report).isLessThan(20_000L);
            assertThat(usecPerCall("evalsha")).as(report).isLessThan(1_000L);
            assertThat(Duration.ofNanos(elapsed)).as(report).isLessThan(Duration.ofSeconds(20));
            assertThat(ping.maxMicros()).as(report).isLessThan(1_000_000L);
        }
    }

    static long usecPerCall(String command) {
        long calls = calls(command);
        return calls == 0 ? 0 : usec(command) / calls;
    }

    @Test
    void aServerThatCannotBeReachedFailsTheListing() {
        LockClient client = client(b -> b.commandTimeout(Duration.ofMillis(500)));
        server.kill();
        assertThatThrownBy(() -> client.locks("*")).isInstanceOf(LockException.class)
                .hasMessageContaining("listing of locks matching '*'");
    }
}
