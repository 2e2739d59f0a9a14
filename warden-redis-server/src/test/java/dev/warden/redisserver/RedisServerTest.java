package dev.warden.redisserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisServerTest {

    @Test
    void startsOnLoopbackAndAnswersCommands() {
        try (RedisServer server = RedisServer.start()) {
            assertThat(server.uri()).startsWith("redis://127.0.0.1:");
            assertThat(server.call("PING")).isEqualTo("PONG");
            assertThat(server.call("SET", "k", "v")).isEqualTo("OK");
            assertThat(server.call("GET", "k")).isEqualTo("v");
            assertThat(server.call("TIME")).isInstanceOf(List.class);
        }
    }

    @Test
    void severalServersRunAtOnceOnDistinctPorts() {
        try (RedisServer a = RedisServer.start(); RedisServer b = RedisServer.start()) {
            assertThat(a.port()).isNotEqualTo(b.port());
            a.call("SET", "only-in-a", "1");
            assertThat(b.call("GET", "only-in-a")).isNull();
        }
    }

    @Test
    void killedServerRefusesConnections() {
        try (RedisServer server = RedisServer.start()) {
            server.kill();
            assertThat(server.isRunning()).isFalse();
            assertThatThrownBy(() -> server.call("PING")).isInstanceOf(UncheckedIOException.class);
        }
    }

    @Test
    void restartKeepsThePortAndLosesTheData() {
        try (RedisServer server = RedisServer.start()) {
            int port = server.port();
            server.call("SET", "k", "v");
            server.restart();
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.call("GET", "k")).isNull();
        }
    }

    @Test
    void pausedServerDoesNotAnswerUntilResumed() throws IOException {
        try (RedisServer server = RedisServer.start();
             Resp resp = new Resp(server.host(), server.port(), Duration.ofMillis(300))) {
            assertThat(resp.call("PING")).isEqualTo("PONG");
            server.pause();
            try {
                assertThatThrownBy(() -> resp.call("PING")).isInstanceOf(SocketTimeoutException.class);
            } finally {
                server.resume();
            }
            assertThat(server.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void errorRepliesAreThrown() {
        try (RedisServer server = RedisServer.start()) {
            assertThatThrownBy(() -> server.call("NOSUCHCOMMAND"))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("unknown command");
        }
    }

    @Test
    void debugSleepIsAvailableForFaultTests() {
        try (RedisServer server = RedisServer.start()) {
            assertThat(server.majorVersion()).isGreaterThanOrEqualTo(6);
            assertThat(server.call("DEBUG", "SLEEP", "0")).isEqualTo("OK");
        }
    }

    @Test
    void extraArgumentsReachTheServer() {
        try (RedisServer server = RedisServer.builder().args("--maxmemory", "12345678").start()) {
            assertThat(server.call("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "12345678"));
        }
    }
}
