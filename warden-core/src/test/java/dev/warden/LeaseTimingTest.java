package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Lease#extend} and {@link Lease#releaseAfter}: the lock's expiry changes in Redis, not only here. */
@Timeout(60)
class LeaseTimingTest extends RedisTestSupport {
    @Test
    void extendLengthensAFixedLeaseInRedisAndHere() throws InterruptedException {
        String name = uniqueName();
        DistributedLock lock = client().lock(name);
        Lease lease = lock.tryAcquire(Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
        assertThat(lease.extend(Duration.ofSeconds(5))).isTrue();
        assertThat(pttl(name)).isBetween(4_000L, 5_000L);
        // The test's intent: past the first lease (300 ms).
        Thread.sleep(600);
        // Past the first lease: still held, here and for another client.
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.remaining()).isGreaterThan(Duration.ofSeconds(3));
        assertThat(client().lock(name).tryAcquire()).isEmpty();
        assertThat(lease.release()).isTrue();
    }

    @Test
    void extendShortensAFixedLeaseAndItEndsThen() throws InterruptedException {
        String name = uniqueName();
        Lease lease = client().lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost(lost::countDown);
        assertThat(lease.extend(Duration.ofMillis(300))).isTrue();
        assertThat(pttl(name)).isBetween(1L, 300L);
        assertThat(lease.remaining()).isLessThanOrEqualTo(Duration.ofMillis(300));
        // Another client gets it once the shortened lease ends, and the holder learns it ended on time.
        Optional<Lease> next = client().lock(name).tryAcquire(Duration.ofSeconds(5));
        assertThat(next).isPresent();
        assertThat(lost.await(2, TimeUnit.SECONDS)).isTrue();
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.release()).isFalse();
        assertThat(next.get().release()).isTrue();
    }

    @Test
    void extendOfALeaseThatRedisLostReportsTheLoss() throws InterruptedException {
        String name = uniqueName();
        Lease lease = client().lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost(lost::countDown);
        server.call("DEL", "test:{" + name + "}");
        assertThat(lease.extend(Duration.ofSeconds(10))).isFalse();
        assertThat(lost.await(2, TimeUnit.SECONDS)).isTrue();
        assertThat(lease.isHeld()).isFalse();
        assertThat(server.call("GET", "test:{" + name + "}")).isNull();
        assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(1))).isInstanceOf(LeaseLostException.class);
    }

    @Test
    void extendRefusesWhatItCannotDo() throws InterruptedException {
        DistributedLock lock = client().lock(uniqueName());
        Lease renewed = lock.tryAcquire().orElseThrow();
        assertThatThrownBy(() -> renewed.extend(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("watchdog");
        renewed.release();
        Lease fixed = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(5)).orElseThrow();
        assertThatThrownBy(() -> fixed.extend(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("lease must be positive: PT0S");
        assertThatThrownBy(() -> fixed.extend(null)).isInstanceOf(NullPointerException.class);
        fixed.release();
        assertThatThrownBy(() -> fixed.extend(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("released");
    }

    @Test
    void releaseAfterKeepsTheLockHeldForThatLongThenFreesIt() throws InterruptedException {
        String name = uniqueName();
        LockClient client = client();
        Lease lease = client.lock(name).acquire();
        long start = System.nanoTime();
        assertThat(lease.releaseAfter(Duration.ofMillis(700))).isTrue();
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.release()).isFalse();
        assertThat(pttl(name)).isBetween(1L, 700L);
        // Nobody gets it meanwhile, this client's own waiters neither; the first waiter takes it after.
        assertThat(client().lock(name).tryAcquire()).isEmpty();
        Optional<Lease> waited = client.lock(name).tryAcquire(Duration.ofSeconds(5));
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(waited).isPresent();
        assertThat(waitedMillis).isBetween(650L, 3_000L);
        assertThat(waited.get().release()).isTrue();
    }

    @Test
    void releaseAfterNothingIsARelease() throws InterruptedException {
        String name = uniqueName();
        Lease lease = client().lock(name).tryAcquire().orElseThrow();
        assertThat(lease.releaseAfter(Duration.ZERO)).isTrue();
        assertThat(client().lock(name).tryAcquire()).isPresent();
    }

    @Test
    void releaseAfterOfALostLeaseSaysSoAndLeavesTheOtherHolder() throws InterruptedException {
        String name = uniqueName();
        Lease lease = client().lock(name).tryAcquire(Duration.ZERO, Duration.ofMillis(100)).orElseThrow();
        Lease other = client().lock(name).tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10)).orElseThrow();
        assertThat(lease.releaseAfter(Duration.ofSeconds(30))).isFalse();
        // The other holder's expiry is untouched: the script checks the token.
        assertThat(pttl(name)).isBetween(1L, 10_000L);
        assertThat(other.isHeld()).isTrue();
        assertThat(other.release()).isTrue();
    }

    private static long pttl(String name) {
        return (Long) server.call("PTTL", "test:{" + name + "}");
    }
}
