package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How long a semaphore's and a read-write lock's keys live (share.lua's retain): the state (with the fencing
 * counter) and the holders at least a day past the last lease's end, so that a fence is never issued twice, and at
 * most an eighth of a day longer, so that the grants and renewals of the next hours write no expiry (issue #42: each
 * {@code PEXPIRE} is a command Redis runs per acquisition).
 */
class ShareRetentionTest extends RedisTestSupport {
    private static final long DAY_MS = 24L * 60 * 60 * 1000;
    /** The most the keys may outlive a lease by: a day and an eighth, plus the lease itself (30 s by default). */
    private static final long MOST_MS = DAY_MS + DAY_MS / 8 + 30_000;

    @Test
    void grantsBesideAHolderWriteNoExpiryAndTheKeysOutliveEveryLeaseByADay() {
        String name = uniqueName();
        DistributedSemaphore semaphore = client().semaphore(name, 4);
        Lease first = semaphore.tryAcquire(1).orElseThrow();
        assertKeptADay(name, "s");
        server.call("CONFIG", "RESETSTAT");
        for (int i = 0; i < 20; i++) {
            Lease lease = semaphore.tryAcquire(1).orElseThrow();
            assertThat(lease.release()).isTrue();
        }
        // Before: two PEXPIREs per grant, 40 here.
        assertThat(calls("pexpire")).isZero();
        assertThat(calls("evalsha")).isEqualTo(40);
        assertKeptADay(name, "s");
        assertThat(first.release()).isTrue();
    }

    @Test
    void theHoldersKeyThatGoesWithItsLastHolderComesBackWithItsExpiry() {
        String name = uniqueName();
        DistributedReadWriteLock lock = client().readWriteLock(name);
        for (int i = 0; i < 5; i++) {
            Lease read = lock.readLock().tryAcquire().orElseThrow();
            assertKeptADay(name, "rw");
            assertThat(read.release()).isTrue();
            assertThat(server.call("EXISTS", "test:{" + name + "}:rw:h")).isEqualTo(0L);
        }
    }

    @Test
    void aWriterHandedOverToAWriterOfItsClientLeavesTheHoldersWithTheirExpiry() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock lock = client().readWriteLock(name);
        Lease held = lock.writeLock().acquire();
        CompletableFuture<Lease> waiter = lock.writeLock().acquireAsync(Duration.ofSeconds(10));
        await(() -> (Long) server.call("ZCARD", "test:{" + name + "}:rw:q") == 1, Duration.ofSeconds(5),
                "the second writer queued");
        assertThat(held.release()).isTrue();
        Lease taken = waiter.get(10, TimeUnit.SECONDS);
        // Moved in Redis from the holder's token to the taker's by share-handed.lua, which removed the only holder
        // first: the holders key went, and came back without an expiry (PTTL -1).
        assertThat(taken.confirm()).isTrue();
        await(() -> (Long) server.call("ZCARD", "test:{" + name + "}:rw:q") == 0, Duration.ofSeconds(5),
                "the taker out of the queue");
        assertKeptADay(name, "rw");
        assertThat(taken.release()).isTrue();
    }

    @Test
    void renewalsWithinTheKeptTimeWriteOnlyTheHoldersExpiry() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = client(b -> b.defaultLease(Duration.ofMillis(900))).semaphore(name, 2);
        Lease lease = semaphore.tryAcquire(1).orElseThrow();
        String holders = "test:{" + name + "}:s:h";
        double granted = Double.parseDouble((String) ((List<?>) server.call("ZRANGE", holders, "0", "0",
                "WITHSCORES")).get(1));
        server.call("CONFIG", "RESETSTAT");
        // Renewed every 300 ms: wait for two renewals' new ends.
        await(() -> Double.parseDouble((String) ((List<?>) server.call("ZRANGE", holders, "0", "0", "WITHSCORES"))
                .get(1)) > granted + 500, Duration.ofSeconds(5), "two renewals");
        assertThat(calls("zadd")).isGreaterThanOrEqualTo(2);
        // One PEXPIRE per renewal, of the holders, so that every renewal writes (its WAIT, where replicas must
        // acknowledge, counts the writes before it); before, two.
        assertThat(calls("pexpire")).isEqualTo(calls("evalsha")).isEqualTo(calls("zadd"));
        assertKeptADay(name, "s");
        assertThat(lease.release()).isTrue();
    }

    /** Both keys of the lock live at least a day and at most an eighth of a day more past its lease. */
    private static void assertKeptADay(String name, String kind) {
        String state = "test:{" + name + "}:" + kind;
        for (String key : List.of(state, state + ":h")) {
            assertThat((Long) server.call("PTTL", key)).as(key).isBetween(DAY_MS, MOST_MS);
        }
    }
}
