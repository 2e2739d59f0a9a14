package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every operation of a lock and a lease that talks to Redis has an asynchronous form: it returns at once, does
 * what the blocking form does, completes on a thread of the client (never an I/O thread of a connection), and
 * fails with what the blocking form throws.
 */
class AsyncOperationsTest extends RedisTestSupport {
    private static final long BOUND_SECONDS = 10;

    private static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(BOUND_SECONDS, TimeUnit.SECONDS);
    }

    private static Throwable failure(CompletableFuture<?> future) {
        assertThatThrownBy(() -> future.get(BOUND_SECONDS, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        return future.handle((value, error) -> error).join();
    }

    @Test
    void releaseAsyncReleasesOnceAndTheLockIsFreeForOthers() throws Exception {
        String name = uniqueName();
        Lease lease = client().lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Boolean> released = lease.releaseAsync();
        assertThat(await(released)).isTrue();
        assertThat(lease.isHeld()).isFalse();
        assertThat(server.call("EXISTS", "test:{" + name + "}")).isEqualTo(0L);
        assertThat(await(lease.releaseAsync())).isFalse();
        assertThat(client().lock(name).tryAcquire()).isPresent();
    }

    @Test
    void releaseAsyncGrantsTheLockToAWaiterOfAnotherClientAndOneOfItsOwn() throws Exception {
        String name = uniqueName();
        LockClient holderClient = client();
        Lease first = holderClient.lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Optional<Lease>> other = client().lock(name).tryAcquireAsync(Duration.ofSeconds(5));
        assertThat(eventually(Duration.ofSeconds(5),
                () -> (Long) server.call("ZCARD", "test:{" + name + "}:q") == 1)).isTrue();
        assertThat(await(first.releaseAsync())).isTrue();
        Lease second = await(other).orElseThrow();
        assertThat(second.isHeld()).isTrue();

        CompletableFuture<Optional<Lease>> own = holderClient.lock(name).tryAcquireAsync(Duration.ofSeconds(5));
        assertThat(eventually(Duration.ofSeconds(5),
                () -> (Long) server.call("ZCARD", "test:{" + name + "}:q") == 1)).isTrue();
        assertThat(await(second.releaseAsync())).isTrue();
        Lease third = await(own).orElseThrow();
        assertThat(third.isHeld()).isTrue();
        assertThat(third.fencingToken()).isGreaterThan(0);
        assertThat(await(third.releaseAsync())).isTrue();
        assertThat(eventually(Duration.ofSeconds(5), () -> !holderClient.lock(name).isLocked())).isTrue();
    }

    @Test
    void aLocalHandoverByReleaseAsyncGivesTheWaiterTheLockAndSettlesInRedis() throws Exception {
        String name = uniqueName();
        LockClient client = client();
        DistributedLock lock = client.lock(name);
        Lease first = lock.tryAcquire().orElseThrow();
        CompletableFuture<Optional<Lease>> waiter = lock.tryAcquireAsync(Duration.ofSeconds(5));
        awaitQueuedInOneClient(name, 1);
        long scripts = scriptCalls();
        assertThat(await(first.releaseAsync())).isTrue();
        Lease second = await(waiter).orElseThrow();
        assertThat(second.isHeld()).isTrue();
        // One script settles the handover; no grant went through Redis.
        assertThat(scriptCalls() - scripts).isEqualTo(1);
        assertThat(queueGone(name)).isTrue();
        assertThat(await(second.releaseAsync())).isTrue();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void theFuturesCompleteOnTheClientsThreadsNotOnAnIoThread() throws Exception {
        DistributedLock lock = client(b -> b.clientName("async-threads")).lock(uniqueName());
        Lease lease = lock.tryAcquire().orElseThrow();
        // Paused, so that every stage below is attached before its future completes.
        server.pause();
        List<CompletableFuture<String>> threads;
        try {
            threads = List.of(lock.inspectAsync(), lock.isLockedAsync(), lease.fencingTokenAsync(),
                    lease.releaseAsync()).stream()
                    .map(future -> future.handle((value, error) -> Thread.currentThread().getName()))
                    .toList();
            assertThat(threads).noneMatch(CompletableFuture::isDone);
        } finally {
            server.resume();
        }
        for (CompletableFuture<String> thread : threads) {
            assertThat(await(thread)).startsWith("warden-async-threads-").contains("-callback-");
        }
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void fencingTokenAsyncIssuesOneTokenThatEveryCallerShares() throws Exception {
        DistributedLock lock = client().lock(uniqueName());
        Lease before = lock.tryAcquire().orElseThrow();
        long previous = before.fencingToken();
        before.release();
        Lease lease = lock.tryAcquire().orElseThrow();
        long fences = scriptCalls();
        CompletableFuture<Long> a = lease.fencingTokenAsync();
        CompletableFuture<Long> b = lease.fencingTokenAsync();
        long token = await(a);
        assertThat(await(b)).isEqualTo(token);
        assertThat(token).isGreaterThan(previous).isEqualTo(lease.fencingToken());
        assertThat(await(lease.fencingTokenAsync())).isEqualTo(token);
        assertThat(scriptCalls() - fences).isLessThanOrEqualTo(1);
        lease.release();
    }

    @Test
    void fencingTokenAsyncOfAReleasedOrLostLeaseFailsAsTheBlockingFormThrows() throws Exception {
        DistributedLock lock = client().lock(uniqueName());
        Lease released = lock.tryAcquire().orElseThrow();
        released.release();
        assertThat(failure(released.fencingTokenAsync())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("released");

        Lease taken = lock.tryAcquire().orElseThrow();
        assertThat(await(lock.forceReleaseAsync())).isPresent();
        assertThat(failure(taken.fencingTokenAsync())).isInstanceOf(LeaseLostException.class);
        assertThat(taken.isHeld()).isFalse();
    }

    @Test
    void extendAsyncMovesTheExpiryInRedisAndRefusesAWatchdogLease() throws Exception {
        String name = uniqueName();
        DistributedLock lock = client().lock(name);
        Lease fixed = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(2)).orElseThrow();
        assertThat(await(fixed.extendAsync(Duration.ofSeconds(60)))).isTrue();
        assertThat((Long) server.call("PTTL", "test:{" + name + "}")).isGreaterThan(50_000L);
        assertThat(fixed.remaining()).isGreaterThan(Duration.ofSeconds(50));
        assertThatThrownBy(() -> fixed.extendAsync(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> fixed.extendAsync(null)).isInstanceOf(NullPointerException.class);
        fixed.release();

        Lease renewed = lock.tryAcquire().orElseThrow();
        assertThat(failure(renewed.extendAsync(Duration.ofSeconds(5)))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("watchdog");
        renewed.release();
    }

    @Test
    void extendAsyncOfALeaseWhoseKeyIsGoneAnswersFalseAndTheLeaseIsLost() throws Exception {
        String name = uniqueName();
        Lease fixed = client().lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
        server.call("DEL", "test:{" + name + "}");
        assertThat(await(fixed.extendAsync(Duration.ofSeconds(60)))).isFalse();
        assertThat(fixed.isHeld()).isFalse();
    }

    @Test
    void releaseAfterAsyncKeepsTheLockHeldInRedisForTheTimeAsked() throws Exception {
        String name = uniqueName();
        DistributedLock lock = client().lock(name);
        Lease lease = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
        assertThat(await(lease.releaseAfterAsync(Duration.ofSeconds(20)))).isTrue();
        assertThat(lease.isHeld()).isFalse();
        long left = (Long) server.call("PTTL", "test:{" + name + "}");
        assertThat(left).isBetween(15_000L, 20_000L);
        assertThat(client().lock(name).tryAcquire()).isEmpty();
        assertThat(await(lease.releaseAfterAsync(Duration.ofSeconds(20)))).isFalse();
    }

    @Test
    void inspectAsyncAndForceReleaseAsyncSeeAndRemoveTheHolder() throws Exception {
        String name = uniqueName();
        DistributedLock lock = client().lock(name);
        LockInfo free = await(lock.inspectAsync());
        assertThat(free.held()).isFalse();
        assertThat(await(lock.isLockedAsync())).isFalse();
        assertThat(await(lock.forceReleaseAsync())).isEmpty();

        Lease lease = lock.tryAcquire().orElseThrow();
        long fence = lease.fencingToken();
        LockInfo held = await(lock.inspectAsync());
        assertThat(held.held()).isTrue();
        assertThat(held.lastFencingToken()).isEqualTo(fence);
        assertThat(held.remainingLease()).isPositive();
        assertThat(await(lock.isLockedAsync())).isTrue();

        OptionalLong removed = await(lock.forceReleaseAsync());
        assertThat(removed).hasValue(fence);
        assertThat(await(lock.isLockedAsync())).isFalse();
        assertThat(lease.release()).isFalse();
        assertThat(lease.isHeld()).isFalse();
    }

    @Test
    void onAPausedServerTheAsyncFormsReturnAtOnceAndFailWithATimeout() throws Exception {
        String name = uniqueName();
        DistributedLock lock = client(b -> b.commandTimeout(Duration.ofMillis(400))).lock(name);
        Lease lease = lock.tryAcquire().orElseThrow();
        server.pause();
        try {
            long start = System.nanoTime();
            CompletableFuture<LockInfo> inspected = lock.inspectAsync();
            CompletableFuture<Boolean> released = lease.releaseAsync();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(300));
            assertThat(inspected).isNotDone();
            assertThat(failure(inspected)).isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("inspect of lock '" + name + "'");
            assertThat(failure(released)).isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("release of lock '" + name + "'");
            assertThat(lease.isHeld()).isFalse();
        } finally {
            server.resume();
        }
    }

    @Test
    void aClosedClientFailsTheAsyncFormsWithIllegalStateException() throws Exception {
        LockClient client = client();
        DistributedLock lock = client.lock(uniqueName());
        client.close();
        assertThat(failure(lock.inspectAsync())).isInstanceOf(IllegalStateException.class)
                .hasMessage("client is closed");
        assertThat(failure(lock.forceReleaseAsync())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::inspect).isInstanceOf(IllegalStateException.class).hasMessage("client is closed");
    }

    /**
     * Issue #39 (4): the acquires' futures were completed through the client's callback executor, which a closed
     * client has shut down, so they never completed. Every kind, and a wait already under way at the close.
     */
    @Test
    void aClosedClientCompletesEveryAsyncAcquire() throws Exception {
        LockClient client = client();
        String held = uniqueName();
        Lease other = client().lock(held).acquire();
        CompletableFuture<Optional<Lease>> waiting = client.lock(held).tryAcquireAsync(Duration.ofMinutes(1));
        CompletableFuture<Lease> waitingToo = client.lock(held).acquireAsync(Duration.ofMinutes(1));
        DistributedLock lock = client.lock(uniqueName());
        DistributedReadWriteLock rw = client.readWriteLock(uniqueName());
        DistributedSemaphore semaphore = client.semaphore(uniqueName(), 2);
        DistributedMultiLock multi = client.multiLock(List.of(uniqueName(), uniqueName()));
        client.close();
        assertThat(failure(lock.acquireAsync(Duration.ofSeconds(1)))).isInstanceOf(IllegalStateException.class);
        assertThat(failure(lock.tryAcquireAsync(Duration.ofSeconds(1)))).isInstanceOf(IllegalStateException.class);
        assertThat(failure(rw.readLock().tryAcquireAsync(Duration.ZERO))).isInstanceOf(IllegalStateException.class);
        assertThat(failure(rw.writeLock().acquireAsync(Duration.ZERO))).isInstanceOf(IllegalStateException.class);
        assertThat(failure(semaphore.tryAcquireAsync(1, Duration.ZERO))).isInstanceOf(IllegalStateException.class);
        assertThat(failure(multi.tryAcquireAsync(Duration.ZERO))).isInstanceOf(IllegalStateException.class);
        assertThat(waiting.handle((value, error) -> error != null || value.isEmpty())
                .get(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(waitingToo.handle((value, error) -> error).get(BOUND_SECONDS, TimeUnit.SECONDS)).isNotNull();
        assertThat(other.release()).isTrue();
    }

    /** Issue #40 (2): the async twins of tryAcquire(), tryAcquire(wait, lease) and an unbounded acquire(). */
    @Test
    void everyAcquireHasAnAsyncForm() throws Exception {
        String name = uniqueName();
        DistributedLock lock = client().lock(name);
        Lease fixed = lock.tryAcquireAsync(Duration.ZERO, Duration.ofSeconds(20))
                .get(BOUND_SECONDS, TimeUnit.SECONDS).orElseThrow();
        assertThat(fixed.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(20));
        // A fixed lease is extended on request, never by the watchdog.
        assertThat(fixed.extendAsync(Duration.ofSeconds(30)).get(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.tryAcquireAsync().get(BOUND_SECONDS, TimeUnit.SECONDS)).isEmpty();
        CompletableFuture<Lease> unbounded = lock.acquireAsync();
        // Queued first, so that the release goes to it and the fixed waiter comes next.
        assertThat(eventually(Duration.ofSeconds(BOUND_SECONDS), () -> lock.inspect().waiters() == 1)).isTrue();
        CompletableFuture<Optional<Lease>> fixedWaiting =
                client().lock(name).tryAcquireAsync(Duration.ofSeconds(BOUND_SECONDS), Duration.ofSeconds(5));
        assertThat(unbounded).isNotDone();
        assertThat(fixed.release()).isTrue();
        Lease next = unbounded.get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertThat(next.isHeld()).isTrue();
        assertThat(next.release()).isTrue();
        Lease last = fixedWaiting.get(BOUND_SECONDS, TimeUnit.SECONDS).orElseThrow();
        assertThat(last.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(5));
        assertThat(last.release()).isTrue();
    }

    @Test
    void everySemaphoreAcquireHasAnAsyncFormAndOnePermitNeedsNoCount() throws Exception {
        DistributedSemaphore semaphore = client().semaphore(uniqueName(), 3);
        Lease one = semaphore.acquire();
        assertThat(semaphore.available()).isEqualTo(2);
        Lease fixed = semaphore.tryAcquireAsync(1, Duration.ZERO, Duration.ofSeconds(20))
                .get(BOUND_SECONDS, TimeUnit.SECONDS).orElseThrow();
        assertThat(fixed.remaining()).isLessThanOrEqualTo(Duration.ofSeconds(20));
        assertThat(semaphore.tryAcquireAsync(2).get(BOUND_SECONDS, TimeUnit.SECONDS)).isEmpty();
        CompletableFuture<Lease> two = semaphore.acquireAsync(2);
        assertThat(two).isNotDone();
        one.release();
        Lease both = two.get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertThat(semaphore.available()).isZero();
        CompletableFuture<Lease> single = semaphore.acquireAsync();
        fixed.release();
        single.get(BOUND_SECONDS, TimeUnit.SECONDS).release();
        both.release();
        assertThat(semaphore.available()).isEqualTo(3);
    }

    @Test
    void aStageThatThrowsOnAnAsyncResultDoesNotHangTheClient() throws Exception {
        DistributedLock lock = client().lock(uniqueName());
        CompletableFuture<Boolean> broken = lock.isLockedAsync().thenApply(held -> {
            throw new IllegalStateException("caller's bug");
        });
        assertThatThrownBy(() -> broken.get(BOUND_SECONDS, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThatThrownBy(broken::join).isInstanceOf(CompletionException.class);
        assertThat(await(lock.isLockedAsync())).isFalse();
    }
}
