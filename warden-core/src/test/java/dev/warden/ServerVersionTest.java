package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * A client reads the server's version when it connects and refuses one older than its scripts need; a proxy in
 * front of the real server plays the old one by rewriting the version in {@code INFO server}.
 */
class ServerVersionTest extends RedisTestSupport {
    @Test
    void aServerOlderThanRedis60IsRefusedWhenTheClientConnects() {
        proxy().rewriteStrings("redis_version:", "redis_version:5.0.14\r\nreal_version:");
        LockConfig config = LockConfig.builder().redisUri(proxy().uri()).build();
        assertThatThrownBy(() -> LockClient.create(config).close())
                .isInstanceOf(LockException.class)
                .hasMessage("Redis 5.0.14 at " + proxy().uri() + " is too old: Warden needs Redis 6.0 or later "
                        + "(its scripts use SET ... KEEPTTL)");
    }

    @Test
    void aServerOfRedis60OrLaterIsAccepted() {
        proxy().rewriteStrings("redis_version:", "redis_version:6.0.0\r\nreal_version:");
        try (LockClient client = LockClient.create(LockConfig.builder().redisUri(proxy().uri()).build())) {
            try (Lease lease = client.lock(uniqueName()).tryAcquire().orElseThrow()) {
                assertThat(lease.isHeld()).isTrue();
            }
        }
    }
}
