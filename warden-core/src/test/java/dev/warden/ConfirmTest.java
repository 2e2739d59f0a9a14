package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@link Lease#confirm()}: Redis's answer on whether a lease still holds its lock, for every kind of lease; a lease
 * found gone is lost, with its callbacks run, and nothing is changed for a lease that holds.
 */
class ConfirmTest extends RedisTestSupport {
    private static final long BOUND_SECONDS = 10;

    @Test
    void aHeldLeaseIsConfirmedWithoutChangingItsExpiry() throws Exception {
        String name = uniqueName();
        Lease lease = client().lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
        server.call("PEXPIRE", "test:{" + name + "}", "20000");
        assertThat(lease.confirm()).isTrue();
        assertThat(lease.confirmAsync().get(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat((Long) server.call("PTTL", "test:{" + name + "}")).isBetween(1L, 20_000L);
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.release()).isTrue();
    }

    @Test
    void onlyTheTokenAfterTheColonHoldsTheLock() throws Exception {
        // The lease's token after the colon, with a fence or without one, holds the lock.
        String name = uniqueName();
        Lease lease = client().lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
        String token = tokenIn(name);
        for (String held : List.of("17:" + token, ":" + token, "1764318000123456:" + token)) {
            server.call("SET", "test:{" + name + "}", held, "KEEPTTL");
            assertThat(lease.confirm()).as(held).isTrue();
        }
        assertThat(lease.release()).isTrue();
        // Values that end with the token, or nearly, but do not carry it after the colon: each on a lease of its own,
        // since a lease found lost asks Redis no more.
        List<UnaryOperator<String>> others = List.of(t -> "17:x" + t, t -> t, t -> ":" + t.substring(1),
                t -> "17:" + t + "x", t -> t + ":" + t.substring(0, t.length() - 1), t -> "x");
        for (UnaryOperator<String> other : others) {
            String each = uniqueName();
            Lease taken = client().lock(each).tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
            String value = other.apply(tokenIn(each));
            server.call("SET", "test:{" + each + "}", value, "KEEPTTL");
            assertThat(taken.confirm()).as(value).isFalse();
        }
    }

    /** @return the token in the lock key of {@code name}: what follows its colon */
    private static String tokenIn(String name) {
        String value = (String) server.call("GET", "test:{" + name + "}");
        return value.substring(value.indexOf(':') + 1);
    }

    @Test
    void aLeaseForceReleasedIsFoundLostAndItsCallbacksRun() throws Exception {
        String name = uniqueName();
        Lease lease = client().lock(name).acquire();
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost(lost::countDown);
        client().lock(name).forceRelease();
        Lease other = client().lock(name).tryAcquire().orElseThrow();
        assertThat(lease.isHeld()).as("not known here before it is asked").isTrue();
        assertThat(lease.confirm()).isFalse();
        assertThat(lost.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.release()).isFalse();
        assertThat(other.confirm()).isTrue();
        other.release();
    }

    @Test
    void aReleasedLeaseIsNotConfirmedAndSendsNothing() throws Exception {
        Lease lease = client().lock(uniqueName()).acquire();
        lease.release();
        long before = scriptCalls();
        assertThat(lease.confirm()).isFalse();
        assertThat(lease.confirmAsync().get(BOUND_SECONDS, TimeUnit.SECONDS)).isFalse();
        assertThat(scriptCalls()).isEqualTo(before);
    }

    @Test
    void readWriteAndPermitLeasesAreConfirmedUntilForcedOut() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock rw = client().readWriteLock(name);
        Lease read = rw.readLock().acquire();
        assertThat(read.confirm()).isTrue();
        rw.readLock().forceRelease();
        assertThat(read.confirm()).isFalse();
        assertThat(read.isHeld()).isFalse();

        Lease write = rw.writeLock().acquire();
        assertThat(write.confirm()).isTrue();
        rw.writeLock().forceRelease();
        assertThat(write.confirmAsync().get(BOUND_SECONDS, TimeUnit.SECONDS)).isFalse();

        DistributedSemaphore semaphore = client().semaphore(uniqueName(), 2);
        Lease permits = semaphore.acquire(2);
        assertThat(permits.confirm()).isTrue();
        semaphore.forceRelease();
        assertThat(permits.confirm()).isFalse();
        assertThat(permits.isHeld()).isFalse();
    }

    @Test
    void aMultiLeaseIsConfirmedOnlyWhileEveryPartHolds() throws Exception {
        String a = uniqueName();
        String b = uniqueName();
        Lease lease = client().multiLock(List.of(a, b)).acquire();
        assertThat(lease.confirm()).isTrue();
        client().lock(b).forceRelease();
        assertThat(lease.confirm()).isFalse();
        assertThat(lease.isHeld()).isFalse();
        assertThat(client().lock(a).isLocked()).isTrue();
        lease.close();
        assertThat(client().lock(a).isLocked()).isFalse();
    }
}
