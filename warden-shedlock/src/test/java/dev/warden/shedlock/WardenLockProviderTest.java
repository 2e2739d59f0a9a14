package dev.warden.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.redisserver.RedisServerExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the contract does not cover: the expiry lives in Redis, whatever happens to the client that set it. */
@Timeout(60)
class WardenLockProviderTest {
    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    @Test
    void lockAtLeastForHoldsAfterTheClientThatUnlockedIsClosed() throws InterruptedException {
        LockClient first = client();
        Instant now = ClockProvider.now();
        SimpleLock lock = new WardenLockProvider(first).lock(
                new LockConfiguration(now, "report", Duration.ofSeconds(30), Duration.ofMillis(800))).orElseThrow();
        lock.unlock();
        first.close();
        try (LockClient second = client()) {
            WardenLockProvider provider = new WardenLockProvider(second);
            assertThat(provider.lock(config("report"))).as("within lockAtLeastFor").isEmpty();
            long pttl = (Long) REDIS.server().call("PTTL", "shedlock:{report}");
            assertThat(pttl).isBetween(1L, 800L);
            awaitGone("shedlock:{report}", pttl);
            Optional<SimpleLock> after = provider.lock(config("report"));
            assertThat(after).as("after lockAtLeastFor").isPresent();
            after.get().unlock();
        }
    }

    @Test
    void lockAtMostForEndsTheLockInRedisEvenIfTheHolderDisappears() throws InterruptedException {
        LockClient first = client();
        Instant now = ClockProvider.now();
        new WardenLockProvider(first).lock(new LockConfiguration(now, "sync", Duration.ofMillis(500), Duration.ZERO))
                .orElseThrow();
        long pttl = (Long) REDIS.server().call("PTTL", "shedlock:{sync}");
        assertThat(pttl).isBetween(1L, 500L);
        try (LockClient second = client()) {
            assertThat(new WardenLockProvider(second).lock(config("sync"))).isEmpty();
            awaitGone("shedlock:{sync}", pttl);
            assertThat(new WardenLockProvider(second).lock(config("sync"))).isPresent();
        } finally {
            first.close();
        }
    }

    @Test
    void anExtensionMovesTheExpiryInRedisAndSpendsTheOldLock() {
        try (LockClient client = client()) {
            WardenLockProvider provider = new WardenLockProvider(client);
            SimpleLock lock = provider.lock(new LockConfiguration(ClockProvider.now(), "extend",
                    Duration.ofSeconds(2), Duration.ZERO)).orElseThrow();
            SimpleLock extended = lock.extend(Duration.ofSeconds(20), Duration.ZERO).orElseThrow();
            assertThat((Long) REDIS.server().call("PTTL", "shedlock:{extend}")).isBetween(15_000L, 20_000L);
            assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
            extended.unlock();
            assertThat(REDIS.server().call("GET", "shedlock:{extend}")).isNull();
        }
    }

    /**
     * Waits until Redis has expired {@code key}, whose TTL was {@code pttl} ms; fails if it is still there a second
     * after that. The module's one waiting loop.
     */
    private static void awaitGone(String key, long pttl) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofMillis(pttl + 1_000).toNanos();
        while (!Long.valueOf(0).equals(REDIS.server().call("EXISTS", key))) {
            assertThat(System.nanoTime() - end).as("%s expired within %d ms", key, pttl + 1_000).isNegative();
            Thread.sleep(10);
        }
    }

    private static LockConfiguration config(String name) {
        return new LockConfiguration(ClockProvider.now(), name, Duration.ofSeconds(30), Duration.ZERO);
    }

    private static LockClient client() {
        return LockClient.create(LockConfig.builder().redisUri(REDIS.server().uri()).keyPrefix("shedlock:").build());
    }
}
