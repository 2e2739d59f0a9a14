package dev.warden.internal.lock;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockTimeoutException;
import dev.warden.internal.base.Spinner;
import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A client's blocking calls against a real Redis, as its {@link Spinner} counts them. */
@Timeout(60)
class SpinningClientTest {

    @Test
    void blockingCallsLeaveNoCallerCountedWhetherTheyAcquireWaitTimeOutFailOrAreInterrupted() throws Exception {
        try (RedisServer server = RedisServer.start();
             LockClient client = LockClient.create(LockConfig.builder().redisUri(server.uri())
                     .commandTimeout(Duration.ofMillis(500)).build())) {
            DistributedLock lock = client.lock("spinning");
            Spinner spinner = ((RedisLock) lock).context().spinner();
            for (int i = 0; i < 200; i++) {
                try (Lease lease = lock.acquire()) {
                    assertTrue(lease.isHeld());
                }
                assertTrue(lock.tryAcquire().orElseThrow().release());
            }
            assertFalse(lock.isLocked());
            assertEquals(0, spinner.callers());

            Lease held = lock.acquire();
            // From another thread: this one would be refused at once, since it would wait for itself.
            assertTrue(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return lock.tryAcquire(Duration.ofMillis(50));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }).get(10, TimeUnit.SECONDS).isEmpty());
            assertEquals(0, spinner.callers());
            AtomicBoolean interrupted = new AtomicBoolean();
            Thread waiter = new Thread(() -> {
                try {
                    lock.acquire().close();
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
            });
            waiter.start();
            long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (spinner.callers() == 0 && System.nanoTime() < bound) {
                Thread.onSpinWait();
            }
            assertEquals(1, spinner.callers());
            waiter.interrupt();
            waiter.join(TimeUnit.SECONDS.toMillis(10));
            assertTrue(interrupted.get());
            assertEquals(0, spinner.callers());
            assertTrue(held.release());

            server.pause();
            try {
                assertThrows(LockTimeoutException.class, lock::tryAcquire);
                assertEquals(0, spinner.callers());
            } finally {
                server.resume();
            }
            assertTrue(lock.tryAcquire().orElseThrow().release());
            assertEquals(0, spinner.callers());
        }
    }
}
