package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
        // One HMGET per share script (before: none, and an HGET per field and token, 5 for the move of a share). An
        // HGET reads the queue's head from the registrations, once per script that lends through Redis. (A waiter's
        // registration may be refreshed meanwhile, by a script that reads neither.)
        String stats = (String) server.call("INFO", "commandstats");
        assertThat(calls("hmget")).as("%s", stats).isBetween(1L, scriptCalls());
        assertThat(calls("hget")).as("%s", stats).isLessThanOrEqualTo(calls("hmget"));
        assertThat(taken.confirm()).isTrue();
        assertThat(taken.release()).isTrue();
    }
}
