package dev.warden.redisserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RedisBinaryTest {

    @AfterEach
    void clearProperty() {
        System.clearProperty(RedisBinary.EMBEDDED_PROPERTY);
    }

    @Test
    void eachEmbeddedVersionRunsABinaryOfThatVersion() {
        Path seven = RedisBinary.extractFor("7.0");
        assertThat(RedisBinary.majorVersion(seven)).isEqualTo(7);
        Path six = RedisBinary.extractFor("6.2");
        assertThat(RedisBinary.majorVersion(six)).isEqualTo(6);
        try (RedisServer server = RedisServer.builder().binary(six).start()) {
            assertThat(server.call("INFO", "server").toString()).contains("redis_version:6.2.");
        }
        try (RedisServer server = RedisServer.builder().binary(seven).start()) {
            assertThat(server.call("INFO", "server").toString()).contains("redis_version:7.0.15");
        }
    }

    @Test
    void thePropertyPicksTheEmbeddedVersionAndDefaultsTo70() {
        System.setProperty(RedisBinary.EMBEDDED_PROPERTY, "6.2");
        assertThat(RedisBinary.embeddedVersion()).isEqualTo("6.2");
        System.setProperty(RedisBinary.EMBEDDED_PROPERTY, " 7.0 ");
        assertThat(RedisBinary.embeddedVersion()).isEqualTo("7.0");
        System.clearProperty(RedisBinary.EMBEDDED_PROPERTY);
        String env = System.getenv(RedisBinary.EMBEDDED_ENV);
        assertThat(RedisBinary.embeddedVersion()).isEqualTo(env == null || env.isBlank() ? "7.0" : env.trim());
    }

    @Test
    void anUnknownVersionIsRefusedWithItsName() {
        System.setProperty(RedisBinary.EMBEDDED_PROPERTY, "5.0");
        assertThatThrownBy(RedisBinary::embeddedVersion)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("warden.redis.embedded must be 7.0 or 6.2: 5.0");
    }
}
