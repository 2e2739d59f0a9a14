package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

class LockViewTest extends RedisTestSupport {

    @Test
    void lockIsReentrantPerThreadOverOneLease() throws Exception {
        DistributedLock distributed = client().lock(uniqueName());
        Lock lock = distributed.asLock();
        assertThat(distributed.asLock()).isSameAs(lock);
        lock.lock();
        long fence = distributed.inspect().lastFencingToken();
        assertThat(lock.tryLock()).isTrue();
        lock.lockInterruptibly();
        assertThat(distributed.inspect().lastFencingToken()).isEqualTo(fence);
        lock.unlock();
        lock.unlock();
        assertThat(distributed.isLocked()).isTrue();
        lock.unlock();
        assertThat(distributed.isLocked()).isFalse();
    }

    @Test
    void unlockByAThreadThatDoesNotHoldItThrows() throws Exception {
        Lock lock = client().lock(uniqueName()).asLock();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        lock.lock();
        CompletableFuture<Throwable> other = CompletableFuture.supplyAsync(() -> {
            try {
                lock.unlock();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        assertThat(other.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalMonitorStateException.class);
        lock.unlock();
    }

    @Test
    void otherThreadOfTheSameViewWaitsForTheLock() throws Exception {
        String name = uniqueName();
        Lock lock = client().lock(name).asLock();
        lock.lock();
        CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
            try {
                return lock.tryLock(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(other.get(10, TimeUnit.SECONDS)).isFalse();
        CompletableFuture<Boolean> later = CompletableFuture.supplyAsync(() -> {
            try {
                boolean got = lock.tryLock(10, TimeUnit.SECONDS);
                lock.unlock();
                return got;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        awaitWaiting(name, 1);
        lock.unlock();
        assertThat(later.get(15, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void unlockAfterTheLeaseWasLostThrowsLeaseLost() throws Exception {
        String name = uniqueName();
        Lock lock = client(b -> b.defaultLease(Duration.ofMillis(500))).lock(name).asLock();
        lock.lock();
        client().lock(name).forceRelease();
        assertThatThrownBy(lock::unlock).isInstanceOf(LeaseLostException.class).hasMessageContaining(name);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    /**
     * Issue #39 (1): a reentrant acquire of a lease that an administrator took away while another client now holds
     * the lock used to answer from the hold count: two holders. It asks Redis now, at once and after the watchdog
     * found the loss, and the unlocks still balance.
     */
    @Test
    void reentrantAcquireOfALostLeaseThrowsWhileAnotherClientHoldsIt() throws Exception {
        String name = uniqueName();
        DistributedLock mine = client(b -> b.defaultLease(Duration.ofSeconds(3))).lock(name);
        Lock lock = mine.asLock();
        lock.lock();
        DistributedLock theirs = client().lock(name);
        assertThat(theirs.forceRelease()).isPresent();
        Lease other = theirs.tryAcquire().orElseThrow();

        assertThatThrownBy(lock::tryLock).isInstanceOf(LeaseLostException.class).hasMessageContaining(name);
        assertThatThrownBy(lock::lock).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(LeaseLostException.class);
        assertThat(other.isHeld()).isTrue();

        // One acquire succeeded, so one unlock is owed: it reports the loss, and none is owed after it.
        assertThatThrownBy(lock::unlock).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(other.release()).isTrue();
    }

    /** The same when the server lost the key (as a restart without persistence does) and another client took it. */
    @Test
    void reentrantAcquireAfterTheServerLostTheKeyThrows() throws Exception {
        String name = uniqueName();
        DistributedLock mine = client(b -> b.defaultLease(Duration.ofMillis(300))).lock(name);
        Lock lock = mine.asLock();
        lock.lock();
        assertThat(lock.tryLock()).isTrue();
        server.call("DEL", "test:{" + name + "}");
        Lease other = client().lock(name).tryAcquire().orElseThrow();
        assertThatThrownBy(lock::tryLock).isInstanceOf(LeaseLostException.class);
        lock.unlock();
        assertThatThrownBy(lock::unlock).isInstanceOf(LeaseLostException.class);
        assertThat(other.release()).isTrue();
    }

    @Test
    void conditionsAreNotSupported() {
        Lock lock = client().lock(uniqueName()).asLock();
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void lockWaitsThroughAnInterruptAndKeepsTheFlag() throws Exception {
        String name = uniqueName();
        Lease holder = client().lock(name).tryAcquire().orElseThrow();
        Lock lock = client().lock(name).asLock();
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            lock.lock();
            result.complete(Thread.currentThread().isInterrupted());
            lock.unlock();
        });
        thread.start();
        awaitWaiting(name, 1);
        thread.interrupt();
        // The test's intent: a window in which lock(), were it to give up on the interrupt, would return.
        Thread.sleep(200);
        assertThat(result).isNotDone();
        holder.release();
        assertThat(result.get(10, TimeUnit.SECONDS)).isTrue();
    }
}
