package dev.warden.redisserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class RedisProxyTest {

    @Test
    void passesRequestsAndWholeRepliesAndReplacesTheNextIntegerReplyOnce() throws Exception {
        try (RedisServer server = RedisServer.start(); RedisProxy proxy = RedisProxy.start(server.port());
             Resp resp = new Resp("127.0.0.1", proxy.port(), Duration.ofSeconds(5))) {
            assertThat(proxy.uri()).isEqualTo("redis://127.0.0.1:" + proxy.port());
            assertThat(resp.call("RPUSH", "list", "a", "b", "c")).isEqualTo(3L);
            assertThat(resp.call("LRANGE", "list", "0", "-1")).isEqualTo(List.of("a", "b", "c"));
            CompletableFuture<String> replaced = proxy.replaceNextIntegerReply("surprise");
            // Not an integer reply: passes through, and the replacement stays armed.
            assertThat(resp.call("GET", "missing")).isNull();
            assertThat(replaced).isNotDone();
            assertThat(resp.call("INCR", "n")).isEqualTo("surprise");
            assertThat(replaced.getNow(null)).isEqualTo(":1");
            assertThat(resp.call("INCR", "n")).isEqualTo(2L);
            assertThat(server.call("GET", "n")).isEqualTo("2");
        }
    }
}
