package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.redisserver.RedisProxy;
import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** One real redis-server per test class, emptied before each test; clients made here are closed after it. */
abstract class RedisTestSupport {
    private static final AtomicInteger NAMES = new AtomicInteger();
    static RedisServer server;
    private final List<LockClient> clients = new ArrayList<>();
    /** A proxy in front of the server, made by the first {@link #proxy()} of a test and closed after it. */
    private RedisProxy proxy;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void emptyServer() {
        if (!server.isRunning()) {
            server.restart();
        }
        server.call("FLUSHALL");
        server.call("CONFIG", "RESETSTAT");
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
        clients.clear();
        if (proxy != null) {
            proxy.close();
            proxy = null;
        }
    }

    /** @return a proxy between this test's clients and the server (one per test), for replies it should change */
    RedisProxy proxy() {
        if (proxy == null) {
            proxy = RedisProxy.start(server.port());
        }
        return proxy;
    }

    LockClient client() {
        return client(b -> { });
    }

    LockClient client(java.util.function.Consumer<LockConfig.Builder> settings) {
        LockConfig.Builder builder = LockConfig.builder().redisUri(server.uri()).keyPrefix("test:")
                .commandTimeout(Duration.ofSeconds(2));
        settings.accept(builder);
        LockClient client = LockClient.create(builder.build());
        clients.add(client);
        return client;
    }

    static String uniqueName() {
        return "lock-" + NAMES.incrementAndGet();
    }

    /** How many times Redis ran a command since the last CONFIG RESETSTAT, from INFO commandstats. */
    static long calls(String command) {
        return commandStat(command, "calls");
    }

    /** How long Redis spent running a command since the last CONFIG RESETSTAT, in µs. */
    static long usec(String command) {
        return commandStat(command, "usec");
    }

    /** A field ({@code calls}, {@code usec}) of a command's line in INFO commandstats; 0 if it has none. */
    private static long commandStat(String command, String name) {
        String info = (String) server.call("INFO", "commandstats");
        for (String line : info.split("\r\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
                    if (field.startsWith(name + "=")) {
                        return Long.parseLong(field.substring(name.length() + 1));
                    }
                }
            }
        }
        return 0;
    }

    /** The scripts Redis ran (EVALSHA plus EVAL), the unit of cost of every Warden operation. */
    static long scriptCalls() {
        return calls("evalsha") + calls("eval");
    }

    static Map<String, Long> commandCounts(String... commands) {
        Map<String, Long> counts = new java.util.TreeMap<>();
        for (String command : commands) {
            counts.put(command, calls(command));
        }
        return counts;
    }

    /**
     * Waits until {@code count} waiters of one client (one subscription to its grant channel) are queued for a lock
     * and the try each sends after subscribing, if any, has been answered.
     */
    static void awaitQueuedInOneClient(String name, int count) throws InterruptedException {
        String queue = "test:{" + name + "}:q";
        assertThat(eventually(Duration.ofSeconds(5), () -> (Long) server.call("ZCARD", queue) == count)).isTrue();
        assertThat(eventually(Duration.ofSeconds(5), () -> ((List<?>) server.call("PUBSUB", "CHANNELS",
                "test:{" + name + "}:c:*")).size() == 1)).isTrue();
        Thread.sleep(200);
    }

    /** @return whether the lock's queue and its waiters' registrations are gone (no waiter is registered) */
    static boolean queueGone(String name) {
        String key = "test:{" + name + "}";
        return server.call("EXISTS", key + ":q", key + ":r").equals(0L);
    }

    /** @return every key but the clients' identity records, which are the client's and not a lock's */
    @SuppressWarnings("unchecked")
    static List<String> keysButClientRecords() {
        return ((List<String>) server.call("KEYS", "*")).stream().filter(key -> !key.startsWith("test:client:"))
                .toList();
    }

    /**
     * Makes a client write its identity record (at its first acquisition, from its scheduler) and waits until it
     * is written, so that a test counting requests counts none of its writes.
     */
    static LockClient recorded(LockClient client) throws InterruptedException {
        @SuppressWarnings("unchecked")
        int before = ((List<String>) server.call("KEYS", "test:client:*")).size();
        client.lock("record-" + uniqueName()).tryAcquire().orElseThrow().release();
        assertThat(eventually(Duration.ofSeconds(5),
                () -> ((List<?>) server.call("KEYS", "test:client:*")).size() > before)).isTrue();
        return client;
    }

    /** Waits, bounded, until a condition holds; the tests' only waiting loop, for liveness checks. */
    static boolean eventually(Duration bound, java.util.function.BooleanSupplier condition)
            throws InterruptedException {
        long end = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() - end < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(10);
        }
        return condition.getAsBoolean();
    }
}
