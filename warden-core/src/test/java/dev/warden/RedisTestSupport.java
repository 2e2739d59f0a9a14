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
    /** How long a registration lives without its client listening: {@code Scripts.REGISTRATION_LIFE_MS}. */
    static final long REGISTRATION_LIFE_MS = 3_000;
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
     * and each is registered quietly: its last try found the client subscribed, so it sends nothing more until a
     * grant, the holder's TTL or the end of its wait.
     */
    static void awaitQueuedInOneClient(String name, int count) throws InterruptedException {
        await(() -> queued(name) == count && quietRegistrations(name) == count, Duration.ofSeconds(5),
                count + " waiters of " + name + " queued quietly");
        await(() -> ((List<?>) server.call("PUBSUB", "CHANNELS", "test:{" + name + "}:c:*")).size() == 1,
                Duration.ofSeconds(5), "one client subscribed for " + name);
    }

    /**
     * Waits until {@code count} waiters (of any clients) are queued for a lock and each is registered quietly: each
     * waits, sending nothing until a grant, the holder's TTL or the end of its wait.
     */
    static void awaitWaiting(String name, int count) throws InterruptedException {
        await(() -> queued(name) == count && quietRegistrations(name) == count, Duration.ofSeconds(5),
                count + " waiters of " + name + " queued quietly");
    }

    /** How many registrations the lock's queue holds. */
    static long queued(String name) {
        return (Long) server.call("ZCARD", "test:{" + name + "}:q");
    }

    /** The ms each registration of the lock has left, by the server's clock. */
    @SuppressWarnings("unchecked")
    static List<Long> registrationsLeftMillis(String name) {
        List<String> time = (List<String>) server.call("TIME");
        long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        List<String> entries = (List<String>) server.call("HVALS", "test:{" + name + "}:r");
        return entries.stream().map(entry -> Long.parseLong(entry.substring(0, entry.indexOf(':'))) - now).toList();
    }

    /**
     * The registrations that live longer than a renewing one can ({@link #REGISTRATION_LIFE_MS}): quiet ones, which
     * live the holder's TTL more.
     */
    static long quietRegistrations(String name) {
        return registrationsLeftMillis(name).stream().filter(left -> left > REGISTRATION_LIFE_MS).count();
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

    /**
     * Returns as soon as {@code condition} holds; fails, naming {@code description}, if it does not within
     * {@code timeout}. For a test that waits for something to happen rather than for a guessed time.
     */
    static void await(java.util.function.BooleanSupplier condition, Duration timeout, String description)
            throws InterruptedException {
        Await.await(condition, timeout, description);
    }

    /** Waits, bounded, until a condition holds ({@link Await#eventually}), for liveness checks. */
    static boolean eventually(Duration bound, java.util.function.BooleanSupplier condition)
            throws InterruptedException {
        return Await.eventually(bound, condition);
    }
}
