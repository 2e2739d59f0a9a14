package dev.warden.redisserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

class RedisProxyTest {
    private static final Duration TIMEOUT = Duration.ofMillis(400);

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

    @Test
    void latencyDelaysEachDirectionOnItsOwnAndEndsWhenSetToZero() throws Exception {
        try (RedisServer server = RedisServer.start(); RedisProxy proxy = RedisProxy.start(server.port());
             Resp resp = new Resp("127.0.0.1", proxy.port(), Duration.ofSeconds(5))) {
            assertThat(resp.call("PING")).isEqualTo("PONG");

            // Requests late: the server sees the command only after the delay.
            proxy.latency(Duration.ofMillis(400), Duration.ZERO);
            long start = System.nanoTime();
            CompletableFuture<Object> set = call(resp, "SET", "late-request", "1");
            TimeUnit.MILLISECONDS.sleep(200);
            assertThat(server.call("EXISTS", "late-request")).isEqualTo(0L);
            assertThat(set.get(5, TimeUnit.SECONDS)).isEqualTo("OK");
            assertThat(millisSince(start)).isBetween(400L, 2_000L);

            // Replies late: the server has run the command long before the client hears of it.
            proxy.latency(Duration.ZERO, Duration.ofMillis(600));
            start = System.nanoTime();
            set = call(resp, "SET", "late-reply", "1");
            await(() -> server.call("EXISTS", "late-reply").equals(1L), "the server ran the SET");
            assertThat(millisSince(start)).isLessThan(400L);
            assertThat(set).isNotDone();
            assertThat(set.get(5, TimeUnit.SECONDS)).isEqualTo("OK");
            assertThat(millisSince(start)).isBetween(600L, 2_000L);

            proxy.latency(Duration.ZERO, Duration.ZERO);
            start = System.nanoTime();
            assertThat(resp.call("PING")).isEqualTo("PONG");
            assertThat(millisSince(start)).isLessThan(300L);
            assertThatThrownBy(() -> proxy.latency(Duration.ofMillis(-1), Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requests").hasMessageContaining("-0.001S");
        }
    }

    @Test
    void blackholeHoldsBytesBackWithoutClosingAndHealDeliversThemInOrder() throws Exception {
        try (RedisServer server = RedisServer.start(); RedisProxy proxy = RedisProxy.start(server.port());
             Resp resp = new Resp("127.0.0.1", proxy.port(), TIMEOUT)) {
            assertThat(resp.call("PING")).isEqualTo("PONG");
            assertThat(proxy.blackhole()).isEqualTo(1);

            assertThatThrownBy(() -> resp.call("SET", "held", "1")).isInstanceOf(SocketTimeoutException.class);
            assertThat(server.call("EXISTS", "held")).isEqualTo(0L);
            // A connection opened during the partition is held back too.
            try (Resp late = new Resp("127.0.0.1", proxy.port(), TIMEOUT)) {
                assertThatThrownBy(() -> late.call("PING")).isInstanceOf(SocketTimeoutException.class);
            }
            // Half-open: the client's socket is still connected, and the server still has the connection.
            assertThat(proxy.connections()).hasSizeGreaterThanOrEqualTo(1);
            assertThat(proxy.connections().get(0).id()).isZero();

            proxy.heal();
            await(() -> server.call("EXISTS", "held").equals(1L), "the held-back SET reached the server");
            // The SET's reply comes first, before the GET's: nothing was lost or reordered.
            assertThat(resp.call("GET", "held")).isEqualTo("OK");
            assertThat(resp.read()).isEqualTo("1");
            assertThat(resp.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void blackholeOfSubscribersAloneLeavesOtherConnectionsWorking() throws Exception {
        try (RedisServer server = RedisServer.start(); RedisProxy proxy = RedisProxy.start(server.port());
             Resp commands = new Resp("127.0.0.1", proxy.port(), TIMEOUT);
             Resp subscriber = new Resp("127.0.0.1", proxy.port(), TIMEOUT)) {
            assertThat(commands.call("PING")).isEqualTo("PONG");
            assertThat(subscriber.call("SUBSCRIBE", "news")).isEqualTo(List.of("subscribe", "news", 1L));
            assertThat(proxy.connections()).extracting(RedisProxy.Connection::subscriber).containsExactly(false, true);

            assertThat(proxy.blackhole(RedisProxy.Connection::subscriber)).isEqualTo(1);
            // The server still delivers to its subscriber, but the message stops in the proxy.
            assertThat(commands.call("PUBLISH", "news", "one")).isEqualTo(1L);
            assertThatThrownBy(subscriber::read).isInstanceOf(SocketTimeoutException.class);

            proxy.heal();
            assertThat(subscriber.read()).isEqualTo(List.of("message", "news", "one"));
            assertThat(commands.call("PUBLISH", "news", "two")).isEqualTo(1L);
            assertThat(subscriber.read()).isEqualTo(List.of("message", "news", "two"));
        }
    }

    @Test
    void resetClosesTheChosenConnectionsWithARstOnBothSides() throws Exception {
        try (RedisServer server = RedisServer.start(); RedisProxy proxy = RedisProxy.start(server.port());
             Resp first = new Resp("127.0.0.1", proxy.port(), TIMEOUT);
             Resp second = new Resp("127.0.0.1", proxy.port(), TIMEOUT)) {
            assertThat(first.call("CLIENT", "SETNAME", "first")).isEqualTo("OK");
            assertThat(second.call("CLIENT", "SETNAME", "second")).isEqualTo("OK");
            // Blackholed bytes are dropped by a reset: it ends a partition for good.
            proxy.blackhole(connection -> connection.id() == 0);
            assertThatThrownBy(() -> first.call("PING")).isInstanceOf(SocketTimeoutException.class);

            assertThat(proxy.reset(connection -> connection.id() == 0)).isEqualTo(1);
            // A reset, not an orderly close: the read fails with ECONNRESET rather than reaching the end of stream.
            assertThatThrownBy(first::read).isInstanceOf(SocketException.class).hasMessageContaining("reset");
            await(() -> !clients(server).contains("name=first"), "the server dropped the reset connection");
            assertThat(clients(server)).contains("name=second");
            assertThat(second.call("PING")).isEqualTo("PONG");
            assertThat(proxy.connections()).extracting(RedisProxy.Connection::id).containsExactly(1);

            proxy.heal();
            assertThat(proxy.reset()).isEqualTo(1);
            assertThatThrownBy(second::read).isInstanceOf(SocketException.class).hasMessageContaining("reset");
            // The proxy itself goes on: a new connection works.
            try (Resp third = new Resp("127.0.0.1", proxy.port(), TIMEOUT)) {
                assertThat(third.call("PING")).isEqualTo("PONG");
            }
        }
    }

    @Test
    void closeEndsEveryConnectionAndItsThreads() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            RedisProxy proxy = RedisProxy.start(server.port());
            try (Resp resp = new Resp("127.0.0.1", proxy.port(), TIMEOUT)) {
                assertThat(resp.call("PING")).isEqualTo("PONG");
                proxy.blackhole();
                proxy.close();
                assertThatThrownBy(resp::read).isInstanceOf(IOException.class);
            }
            String prefix = "redis-proxy-" + proxy.port();
            await(() -> Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().startsWith(prefix)),
                    "every thread of the proxy ended");
        }
    }

    private static CompletableFuture<Object> call(Resp resp, String... args) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return resp.call(args);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private static String clients(RedisServer server) {
        return (String) server.call("CLIENT", "LIST");
    }

    private static long millisSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /** Asks every 20 ms, for up to 5 s, until the condition holds. */
    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - end).as("waiting until " + what).isNegative();
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }
}
