package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * Issue #39 (7): a thread that asks again for a lock it holds used to wait for itself (for ever, with
 * {@code acquire()}). Warden's locks are not reentrant; such an acquire that would wait is refused at once, and a
 * single try finds the lock held. A lease counts as its acquiring thread's until released or lost; asynchronous
 * acquires count for no thread.
 */
class SelfWaitTest extends RedisTestSupport {
    private static final long BOUND_SECONDS = 10;

    @Test
    void aThreadHoldingALockIsRefusedItAgainAtOnce() throws Exception {
        String name = uniqueName();
        LockClient client = client();
        Lease lease = client.lock(name).acquire();
        long start = System.nanoTime();
        // A single try does not wait: it finds the lock held, as ShedLock's and the registry's tries expect.
        assertThat(client.lock(name).tryAcquire()).isEmpty();
        assertThat(client.lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(5))).isEmpty();
        assertThatThrownBy(() -> client.lock(name).tryAcquire(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds lock '" + name + "' already");
        assertThatThrownBy(() -> client.lock(name).tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> client.lock(name).acquire()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> client.multiLock(List.of(uniqueName(), name)).tryAcquire(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> client.lock(name).asLock().lock()).isInstanceOf(IllegalStateException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(lease.isHeld()).isTrue();
        lease.release();
        // Released: the same thread takes it again.
        client.lock(name).tryAcquire().orElseThrow().release();
    }

    @Test
    void aThreadHoldingAMultiLockIsRefusedEachPart() throws Exception {
        String a = uniqueName();
        String b = uniqueName();
        LockClient client = client();
        Lease both = client.multiLock(List.of(a, b)).acquire();
        assertThatThrownBy(() -> client.lock(b).acquire()).isInstanceOf(IllegalStateException.class);
        assertThat(client.lock(b).tryAcquire()).isEmpty();
        both.release();
        client.lock(b).tryAcquire().orElseThrow().release();
    }

    @Test
    void otherThreadsAndOtherClientsStillWaitAsBefore() throws Exception {
        String name = uniqueName();
        LockClient client = client();
        Lease lease = client.lock(name).acquire();
        CompletableFuture<Optional<Lease>> other = CompletableFuture.supplyAsync(() -> {
            try {
                return client.lock(name).tryAcquire(Duration.ofMillis(100));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(other.get(BOUND_SECONDS, TimeUnit.SECONDS)).isEmpty();
        assertThat(client().lock(name).tryAcquire()).isEmpty();
        lease.release();
    }

    @Test
    void asyncAcquiresCountForNoThread() throws Exception {
        String name = uniqueName();
        LockClient client = client();
        Lease first = client.lock(name).acquireAsync(Duration.ofSeconds(5)).get(BOUND_SECONDS, TimeUnit.SECONDS);
        // The same thread may wait for it: another thread or stage is meant to release a lease acquired so.
        CompletableFuture<Optional<Lease>> second = client.lock(name).tryAcquireAsync(Duration.ofSeconds(5));
        assertThat(second).isNotDone();
        first.releaseAsync();
        Lease next = second.get(BOUND_SECONDS, TimeUnit.SECONDS).orElseThrow();
        // An async lease is no thread's: a blocking acquire waits for it rather than being refused.
        assertThat(client.lock(name).tryAcquire(Duration.ofMillis(50))).isEmpty();
        next.release();
    }

    @Test
    void aLostLeaseNoLongerCounts() throws Exception {
        String name = uniqueName();
        LockClient client = client();
        Lease lease = client.lock(name).acquire();
        client().lock(name).forceRelease();
        assertThat(lease.confirm()).isFalse();
        client.lock(name).tryAcquire().orElseThrow().release();
    }

    @Test
    void theLockViewIsReentrantButADirectAcquireBesideItIsRefused() throws Exception {
        String name = uniqueName();
        DistributedLock lock = client().lock(name);
        Lock view = lock.asLock();
        view.lock();
        assertThat(view.tryLock()).isTrue();
        assertThatThrownBy(lock::acquire).isInstanceOf(IllegalStateException.class);
        view.unlock();
        view.unlock();
        assertThat(lock.isLocked()).isFalse();
    }
}
