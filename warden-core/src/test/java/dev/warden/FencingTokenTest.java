package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FencingTokenTest extends RedisTestSupport {

    @Test
    void tokensStrictlyIncreaseAcrossReleasesAndExpiries() throws Exception {
        DistributedLock lock = client().lock(uniqueName());
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Lease lease = lock.tryAcquire().orElseThrow();
            tokens.add(lease.fencingToken());
            lease.release();
        }
        Lease expiring = lock.tryAcquire(Duration.ZERO, Duration.ofMillis(50)).orElseThrow();
        tokens.add(expiring.fencingToken());
        assertThat(eventually(Duration.ofSeconds(5), () -> !lock.isLocked())).isTrue();
        tokens.add(lock.tryAcquire(Duration.ofSeconds(5)).orElseThrow().fencingToken());
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void tokensKeepIncreasingWhenTheCounterIsAheadOfTheServerClock() {
        String name = uniqueName();
        long future = (System.currentTimeMillis() + 3_600_000L) * 1000L;
        // A counter ahead of the clock (as after the server's clock stepped back) is still honoured.
        server.call("SET", "test:{" + name + "}", Long.toString(future), "PX", "60000");
        DistributedLock lock = client().lock(name);
        Lease first = lock.tryAcquire().orElseThrow();
        assertThat(first.fencingToken()).isEqualTo(future + 1);
        first.release();
        assertThat(lock.tryAcquire().orElseThrow().fencingToken()).isEqualTo(future + 2);
    }

    @Test
    void tokensKeepIncreasingAfterRedisRestartsWithItsDataLost() throws Exception {
        DistributedLock lock = client().lock(uniqueName());
        Lease before = lock.tryAcquire().orElseThrow();
        long fence = before.fencingToken();
        before.release();
        server.restart();
        assertThat(server.call("DBSIZE")).isEqualTo(0L);
        Lease after = lock.tryAcquire(Duration.ofSeconds(10)).orElseThrow();
        assertThat(after.fencingToken()).isGreaterThan(fence);
        after.release();
    }

    @Test
    void releasedLockLeavesOnlyItsFencingCounterWithAnExpiry() {
        String name = uniqueName();
        Lease lease = client().lock(name).tryAcquire().orElseThrow();
        long fence = lease.fencingToken();
        lease.release();
        assertThat(keysButClientRecords()).isEqualTo(List.of("test:{" + name + "}"));
        assertThat(server.call("GET", "test:{" + name + "}")).isEqualTo(Long.toString(fence));
        assertThat((Long) server.call("PTTL", "test:{" + name + "}")).isGreaterThan(23L * 3600 * 1000);
    }

    @Test
    void aLockWhoseHoldersNeverAskedForAFenceLeavesNoKeyBehind() throws InterruptedException {
        String name = uniqueName();
        DistributedLock lock = client().lock(name);
        lock.tryAcquire().orElseThrow().release();
        lock.acquire().release();
        assertThat(keysButClientRecords()).isEqualTo(List.of());
    }

    @Test
    void aNameWithAKeptFenceIsAcquiredWithItsNextFenceAndNoFurtherRequest() throws InterruptedException {
        DistributedLock lock = client().lock(uniqueName());
        Lease first = lock.acquire();
        long fence = first.fencingToken();
        first.release();
        Lease second = lock.acquire();
        long before = scriptCalls();
        assertThat(second.fencingToken()).isGreaterThan(fence);
        assertThat(scriptCalls()).isEqualTo(before);
        second.release();
    }

    @Test
    void aStalledHolderThatNeverAskedGetsNoFenceAfterAnotherTookTheLock() throws Exception {
        String name = uniqueName();
        Lease stalled = client().lock(name).tryAcquire(Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
        Lease next = client().lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        long nextFence = next.fencingToken();
        assertThatThrownBy(stalled::fencingToken).isInstanceOf(LeaseLostException.class)
                .hasMessageContaining(name);
        assertThat(stalled.isHeld()).isFalse();
        assertThat(next.fencingToken()).isEqualTo(nextFence);
        next.release();
        assertThat(next.fencingToken()).isEqualTo(nextFence);
    }

    @Test
    void aReleasedLeaseThatNeverAskedCannotGetAFence() throws InterruptedException {
        Lease lease = client().lock(uniqueName()).acquire();
        lease.release();
        assertThatThrownBy(lease::fencingToken).isInstanceOf(IllegalStateException.class)
                .isNotInstanceOf(LockException.class);
    }

    @Test
    void everyKeyOfOneLockSharesOneClusterSlotEvenWithBracesInTheName() {
        try (RedisServer cluster = RedisServer.builder().args("--cluster-enabled", "yes").start()) {
            for (String name : List.of("orders:42", "a{b}c", "{x}", "}{", "%7B", "{", "}")) {
                String lock = "test:{" + name.replace("%", "%25").replace("{", "%7B").replace("}", "%7D") + "}";
                Object slot = cluster.call("CLUSTER", "KEYSLOT", lock);
                assertThat(cluster.call("CLUSTER", "KEYSLOT", lock + ":w")).isEqualTo(slot);
                assertThat(cluster.call("CLUSTER", "KEYSLOT", lock + ":c")).isEqualTo(slot);
            }
        }
        // The escaping keeps distinct names distinct and is the one the client really uses.
        DistributedLock braces = client().lock("a{b}c");
        DistributedLock escaped = client().lock("a%7Bb%7Dc");
        Lease one = braces.tryAcquire().orElseThrow();
        Lease two = escaped.tryAcquire().orElseThrow();
        assertThat(server.call("EXISTS", "test:{a%7Bb%7Dc}", "test:{a%257Bb%257Dc}")).isEqualTo(2L);
        one.release();
        two.release();
    }
}
