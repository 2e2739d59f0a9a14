package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A reply of another shape than the script's, put in place by a proxy between the client and Redis: the caller gets
 * a {@link LockException} at once, never a hang, and the client goes on working.
 */
class UnexpectedReplyTest extends RedisTestSupport {
    @Test
    void aWaitingAcquireWhoseScriptReplyIsReplacedFailsWithALockException() throws Exception {
        String name = uniqueName();
        Lease held = client().lock(name).tryAcquire().orElseThrow();
        // Its identity record written first, so that the reply replaced is the acquire's. In fair mode, whose first
        // try is the script before the waiter subscribes, so that the script answers a plain integer (a waiter that
        // listens already is answered a list, {2, ttl}).
        DistributedLock lock = recorded(client(b -> b.redisUri(proxy().uri()).fair(true))).lock(name);
        CompletableFuture<String> replaced = proxy().replaceNextIntegerReply("surprise");
        // On this thread, whose identity is recorded (a new thread's first acquire writes its name): bounded by
        // the wait itself, and timed.
        long start = System.nanoTime();
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(30))).isInstanceOf(LockException.class)
                .hasMessageContaining("acquire of lock '" + name + "'")
                .hasMessageContaining("unexpected reply from acquire-queued.lua: surprise");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(replaced.getNow(null)).startsWith(":-");
        // The next acquire goes through the same client and connection, and sees the lock held.
        assertThat(lock.tryAcquire()).isEmpty();
        assertThat(held.release()).isTrue();
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> lock.tryAcquire(Duration.ofSeconds(5))
                .orElseThrow().release());
    }

    @Test
    void aReleaseWhoseReplyIsReplacedFailsWithALockExceptionAndTheLockIsFree() throws Exception {
        String name = uniqueName();
        DistributedLock lock = recorded(client(b -> b.redisUri(proxy().uri()))).lock(name);
        Lease lease = lock.tryAcquire().orElseThrow();
        CompletableFuture<String> replaced = proxy().replaceNextIntegerReply("surprise");
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            assertThatThrownBy(lease::release).isInstanceOf(LockException.class)
                    .hasMessageContaining("release of lock '" + name + "'")
                    .hasMessageContaining("unexpected reply from release-queued.lua: surprise");
        });
        assertThat(replaced.get(1, TimeUnit.SECONDS)).isEqualTo(":1");
        // The script ran; only its answer was lost on the way.
        assertThat(client().lock(name).isLocked()).isFalse();
    }
}
