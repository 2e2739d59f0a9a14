package dev.warden.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.LockException;
import org.junit.jupiter.api.Test;

class RedisVersionTest {

    @Test
    void readsTheVersionFromInfoServer() {
        RedisVersion version = RedisVersion.parse("# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n");
        assertThat(version).isEqualTo(new RedisVersion(7, 0, "7.0.15"));
        assertThat(version.atLeast(7, 0)).isTrue();
        assertThat(version.atLeast(7, 2)).isFalse();
        assertThat(RedisVersion.parse("redis_version:6.2.6\n").atLeast(6, 0)).isTrue();
        assertThat(RedisVersion.parse("# Server\r\nredis_mode:standalone\r\n")).isEqualTo(RedisVersion.UNKNOWN);
        assertThat(RedisVersion.parse("redis_version:x.y\r\n")).isEqualTo(RedisVersion.UNKNOWN);
    }

    @Test
    void aServerOlderThanTheScriptsNeedIsRefusedByName() {
        assertThatThrownBy(() -> RedisVersion.parse("redis_version:5.0.14\r\n").require("redis://127.0.0.1:6379"))
                .isInstanceOf(LockException.class)
                .hasMessage("Redis 5.0.14 at redis://127.0.0.1:6379 is too old: Warden needs Redis 6.0 or later "
                        + "(its scripts use SET ... KEEPTTL)");
        RedisVersion.parse("redis_version:6.0.0\r\n").require("here");
        RedisVersion.parse("redis_version:8.4.0\r\n").require("here");
        RedisVersion.UNKNOWN.require("here");
    }
}
