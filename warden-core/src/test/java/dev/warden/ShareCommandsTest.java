package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * What a semaphore's and a read-write lock's scripts ask of Redis (issue #42): each reads the lock's state hash once,
 * with one {@code HMGET} of the fields it needs (permits in use, capacity, last fence, the tokens' entries), instead of
 * an {@code HGET} per field. Counted in {@code INFO commandstats}, which includes the commands scripts run.
 */
class ShareCommandsTest extends RedisTestSupport {
    private static final long BOUND_SECONDS = 10;

    @Test
    void anUncontendedPermitReadsTheStateOnceToAcquireAndOnceToRelease() {
        DistributedSemaphore semaphore = client().semaphore(uniqueName(), 4);
        assertOneReadPerScript(() -> semaphore.tryAcquire(1));
    }

    @Test
    void anUncontendedReadShareReadsTheStateOnceToAcquireAndOnceToRelease() {
        DistributedReadWriteLock lock = client().readWriteLock(uniqueName());
        assertOneReadPerScript(() -> lock.readLock().tryAcquire());
    }

    /** 50 uncontended tries and releases (after one first, for the scripts' loading): one HMGET each, no HGET. */
    private static void assertOneReadPerScript(Supplier<Optional<Lease>> tryAcquire) {
        tryAcquire.get().orElseThrow().release();
        server.call("CONFIG", "RESETSTAT");
        for (int i = 0; i < 50; i++) {
            Lease lease = tryAcquire.get().orElseThrow();
            assertThat(lease.release()).isTrue();
        }
        assertThat(commandCounts("hget", "hmget", "evalsha"))
                .containsEntry("hget", 0L).containsEntry("hmget", 100L).containsEntry("evalsha", 100L);
    }

    @Test
    void aHandoverToAQueuedWaiterReadsTheStateOnce() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = client().semaphore(name, 1);
        Lease held = semaphore.acquire();
        CompletableFuture<Lease> waiter = semaphore.acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
        await(() -> (Long) server.call("ZCARD", "test:{" + name + "}:s:q") == 1, Duration.ofSeconds(5),
                "the waiter queued");
        server.call("CONFIG", "RESETSTAT");

        assertThat(held.release()).isTrue();
        Lease taken = waiter.get(BOUND_SECONDS, TimeUnit.SECONDS);
        // Handed over inside the client, the share is moved in Redis afterwards; through Redis, the release lends
        // it. Either way one script reads the state once, and Redis has the waiter as the one holder, none queued.
        await(() -> calls("hmget") >= 1 && (Long) server.call("ZCARD", "test:{" + name + "}:s:q") == 0
                && (Long) server.call("ZCARD", "test:{" + name + "}:s:h") == 1, Duration.ofSeconds(5),
                "the waiter holding in Redis");
        // One HMGET of the state per share script (before: none, and an HGET per field and token, 5 for the move of a
        // share), and one more of the queue's first registrations in a script that lends through Redis; no HGET. (A
        // waiter's registration may be refreshed meanwhile, by a script that reads neither.)
        String stats = (String) server.call("INFO", "commandstats");
        assertThat(calls("hmget")).as("%s", stats).isBetween(1L, 2 * scriptCalls());
        assertThat(calls("hget")).as("%s", stats).isZero();
        assertThat(taken.confirm()).isTrue();
        assertThat(taken.release()).isTrue();
    }

    @Test
    void aReleaseGrantsManyWaitersFourAtATimeAndDropsTheDeadOnTheWay() throws Exception {
        String name = uniqueName();
        String state = "test:{" + name + "}:s";
        Lease all = client().semaphore(name, 10).acquire(10);
        // Nine waiters of two other clients, so that the release lends through Redis, not inside a client.
        DistributedSemaphore five = client().semaphore(name, 10);
        DistributedSemaphore four = client().semaphore(name, 10);
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            waiters.add((i % 2 == 0 ? five : four).acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS)));
            int queued = i + 1;
            await(() -> (Long) server.call("ZCARD", state + ":q") == queued, Duration.ofSeconds(5),
                    queued + " waiters queued");
        }
        // A dead waiter (its registration ended, its client gone) between the fifth and the sixth.
        @SuppressWarnings("unchecked")
        List<String> queue = (List<String>) server.call("ZRANGE", state + ":q", "0", "-1", "WITHSCORES");
        double between = (Double.parseDouble(queue.get(9)) + Double.parseDouble(queue.get(11))) / 2;
        server.call("ZADD", state + ":q", Double.toString(between), "dead");
        server.call("HSET", state + ":r", "dead", "1:30000:0:1:gone");
        server.call("HINCRBY", state + ":r", "#gone", "1");
        server.call("CONFIG", "RESETSTAT");

        assertThat(all.release()).isTrue();
        // One script granted the nine, and dropped the dead one: its queue read in three ZRANGEs of four (before:
        // a ZRANGE and an HGET per waiter, the dead one too, and one more ZRANGE to find the queue empty).
        String stats = (String) server.call("INFO", "commandstats");
        assertThat(calls("zrange")).as("%s", stats).isEqualTo(3);
        assertThat(calls("hget")).as("%s", stats).isZero();
        assertThat(calls("hset")).as("%s", stats).isEqualTo(3);
        assertThat(calls("publish")).as("%s", stats).isEqualTo(9);
        List<Long> fences = new ArrayList<>();
        for (CompletableFuture<Lease> waiter : waiters) {
            Lease lease = waiter.get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertThat(lease.confirm()).isTrue();
            fences.add(lease.fencingToken());
        }
        // In the queue's order, each with a fence above the one before; the state counts the nine and keeps the last
        // fence; the queue, its registrations and the clients' counts are gone.
        assertThat(fences).isSorted().doesNotHaveDuplicates();
        assertThat(server.call("HGET", state, "used")).isEqualTo("9");
        assertThat(server.call("HGET", state, "fence")).isEqualTo(Long.toString(fences.get(8)));
        assertThat(server.call("ZCARD", state + ":h")).isEqualTo(9L);
        assertThat(server.call("EXISTS", state + ":q", state + ":r")).isEqualTo(0L);
        assertThat((Long) server.call("PTTL", state + ":h")).isGreaterThan(Duration.ofHours(23).toMillis());
    }
}
