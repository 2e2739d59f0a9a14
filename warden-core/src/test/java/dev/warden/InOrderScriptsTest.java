package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The scripts that must reach Redis before any request sent after them, such as the one that settles a local
 * handover: by SHA once the server answered a {@code SCRIPT LOAD} of them, and what a server that forgot them does
 * to a handover. A class of its own, with its own server: it flushes the server's scripts, and a later test that
 * counts {@code EVAL}s would count the reloads.
 */
class InOrderScriptsTest extends RedisTestSupport {
    private static final long BOUND_SECONDS = 10;

    /**
     * The script that settles a local handover goes by SHA once the server answered its SCRIPT LOAD. A server that
     * forgot it (a SCRIPT FLUSH here; a restart or a failover alike) answers NOSCRIPT, and the script is not sent
     * again behind the new holder's requests: the handover fails as if its request had, its taker's lease is lost,
     * the share stays the old holder's in Redis until its lease ends (nobody else is lent the permit meanwhile), and
     * the next handover goes by EVAL again.
     */
    @Test
    void aHandoverWhoseScriptTheServerForgotLosesItsTakerAndLendsThePermitToNobodyElse() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = recorded(client()).semaphore(name, 1);
        Lease held = semaphore.acquire(1);
        // Handovers until one goes by SHA: the first by EVAL, with the SCRIPT LOAD of its script behind it.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        boolean bySha = false;
        while (!bySha) {
            assertThat(System.nanoTime() - deadline).as("a handover by SHA within the bound").isNegative();
            CompletableFuture<Lease> waiter = semaphore.acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
            SemaphoreTest.awaitQueuedAndListening(name, 1, semaphore);
            server.call("CONFIG", "RESETSTAT");
            assertThat(held.release()).isTrue();
            held = waiter.get(BOUND_SECONDS, TimeUnit.SECONDS);
            awaitQueueEmpty(name);
            // A handover's script reads the holder's lease end (ZSCORE); a release through Redis does not.
            bySha = calls("evalsha") == 1 && calls("eval") == 0 && calls("zscore") == 1;
            assertThat(held.confirm()).isTrue();
        }

        CompletableFuture<Lease> taker = semaphore.acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
        SemaphoreTest.awaitQueuedAndListening(name, 1, semaphore);
        server.call("SCRIPT", "FLUSH");
        Lease old = held;
        assertThatThrownBy(old::release).isInstanceOf(LockException.class).hasMessageContaining("NOSCRIPT");
        Lease next = taker.get(BOUND_SECONDS, TimeUnit.SECONDS);
        CountDownLatch lost = new CountDownLatch(1);
        next.onLost(lost::countDown);
        assertThat(lost.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(next.isHeld()).isFalse();
        // The old holder's share is still in Redis, so no one else is lent the permit before its lease ends.
        assertThat(semaphore.inspect().holders()).isEqualTo(1);
        assertThat(recorded(client()).semaphore(name, 1).tryAcquire(1)).isEmpty();
        // The next handover goes by EVAL, and works.
        assertThat(semaphore.forceRelease()).isPresent();
        Lease again = semaphore.acquire(1);
        CompletableFuture<Lease> after = semaphore.acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
        SemaphoreTest.awaitQueuedAndListening(name, 1, semaphore);
        server.call("CONFIG", "RESETSTAT");
        assertThat(again.release()).isTrue();
        Lease last = after.get(BOUND_SECONDS, TimeUnit.SECONDS);
        awaitQueueEmpty(name);
        assertThat(commandCounts("evalsha", "eval", "publish"))
                .containsEntry("evalsha", 0L).containsEntry("eval", 1L).containsEntry("publish", 0L);
        assertThat(last.confirm()).isTrue();
        assertThat(last.release()).isTrue();
    }

    /** Waits until the lock's queue is empty: the script that settled a handover to its one waiter has run. */
    private static void awaitQueueEmpty(String name) throws InterruptedException {
        await(() -> (Long) server.call("EXISTS", SemaphoreTest.queueKey(name)) == 0, Duration.ofSeconds(5),
                "the queue empty");
    }
}
