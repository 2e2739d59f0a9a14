package dev.warden.internal.script;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.redisserver.RedisServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How long a shared lock's queue and registrations live (share.lua's keep_queue), driven by share-acquire.lua and
 * share-release.lua as the client calls them: past every registration's end, and written about once per
 * registration life rather than twice per try (issue #42).
 */
@Timeout(60)
class ShareQueueExpiryTest {
    private static final String[] KEYS = {"s:{q}", "s:{q}:h", "s:{q}:q", "s:{q}:r"};
    private static final long LIFE_MS = Scripts.REGISTRATION_LIFE_MS;
    private static RedisServer server;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void empty() {
        server.call("FLUSHALL");
    }

    @Test
    void aWaitersTriesWriteTheQueuesExpiryOncePerLifeAndItOutlivesTheirRegistration() {
        assertThat((List<?>) acquire("holder", "0", "client-a")).first().isEqualTo(1L);
        server.call("CONFIG", "RESETSTAT");
        assertThat(acquire("waiter", "1", "client-b")).isInstanceOf(List.class);
        // The queue was empty: its keys are new, and both get an expiry.
        assertThat(calls("pexpire")).isEqualTo(2);
        assertOutlivesRegistration("waiter");
        server.call("CONFIG", "RESETSTAT");
        for (int i = 0; i < 5; i++) {
            assertThat(acquire("waiter", "2", "client-b")).isInstanceOf(Long.class);
            assertOutlivesRegistration("waiter");
        }
        // Before: two PEXPIREs per try, 10 here.
        assertThat(calls("pexpire")).isZero();
        // Once "queue_kept" no longer covers a registration, the next try sets both expiries again.
        server.call("HSET", KEYS[0], "queue_kept", "1");
        acquire("waiter", "2", "client-b");
        assertThat(calls("pexpire")).isEqualTo(2);
        assertOutlivesRegistration("waiter");
        assertThat((Long) server.call("PTTL", KEYS[2])).isGreaterThan(LIFE_MS);
    }

    @Test
    void aQueueThatWentWithItsLastWaiterComesBackWithItsExpiry() {
        acquire("holder", "0", "client-a");
        acquire("first", "1", "client-b");
        // The release lends the permit to the waiter: the queue and registrations go with it.
        assertThat(release("holder", "client-a")).isEqualTo(1L);
        assertThat(server.call("EXISTS", KEYS[2], KEYS[3])).isEqualTo(0L);
        server.call("CONFIG", "RESETSTAT");
        acquire("second", "1", "client-c");
        // "queue_kept" still covers the new registration, but the keys are new.
        assertThat(calls("pexpire")).isEqualTo(2);
        assertOutlivesRegistration("second");
    }

    /** Both keys live at least until the token's registration ends, and at most a life longer (5 ms for rounding). */
    private static void assertOutlivesRegistration(String token) {
        String registration = (String) server.call("HGET", KEYS[3], token);
        long ends = Long.parseLong(registration.substring(0, registration.indexOf(':')));
        List<?> time = (List<?>) server.call("TIME");
        long now = Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
        for (String key : List.of(KEYS[2], KEYS[3])) {
            assertThat((Long) server.call("PTTL", key)).as(key).isBetween(ends - now - 5, ends - now + LIFE_MS + 5);
        }
    }

    /** share-acquire.lua for one permit of a semaphore of one; `kind` "0" one try, "1" a first, "2" a later one. */
    private static Object acquire(String token, String kind, String client) {
        return run("share-acquire", token, "60000", kind, "1", "60000", Long.toString(LIFE_MS), client, "1", "1", "s",
                "", Long.toString(Scripts.FENCE_RETENTION_MS), "s:{q}:c", "PUBLISH");
    }

    private static Object release(String token, String client) {
        return run("share-release", token, "s", Long.toString(Scripts.FENCE_RETENTION_MS), "s:{q}:c", "PUBLISH",
                client);
    }

    private static Object run(String name, String... args) {
        Script script = ShareScripts.all().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
        List<String> command = new ArrayList<>(List.of("EVAL", script.source(), Integer.toString(KEYS.length)));
        command.addAll(List.of(KEYS));
        command.addAll(List.of(args));
        return server.call(command.toArray(String[]::new));
    }

    private static long calls(String command) {
        String stats = (String) server.call("INFO", "commandstats");
        int at = stats.indexOf("cmdstat_" + command + ":calls=");
        if (at < 0) {
            return 0;
        }
        int from = at + ("cmdstat_" + command + ":calls=").length();
        return Long.parseLong(stats.substring(from, stats.indexOf(',', from)));
    }
}
