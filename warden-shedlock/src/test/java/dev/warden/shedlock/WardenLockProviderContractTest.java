package dev.warden.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.redisserver.RedisServer;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * ShedLock's own contract for lock providers that can extend, run unmodified against a real Redis: every test of
 * {@code AbstractExtensibleLockProviderIntegrationTest} and of the {@code AbstractLockProviderIntegrationTest} it
 * extends.
 */
class WardenLockProviderContractTest extends AbstractExtensibleLockProviderIntegrationTest {
    private static RedisServer server;
    private static LockClient client;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        client = LockClient.create(LockConfig.builder().redisUri(server.uri()).keyPrefix("shedlock:").build());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void emptyServer() {
        server.call("FLUSHALL");
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return new WardenLockProvider(client);
    }

    @Override
    protected void assertUnlocked(String lockName) {
        assertThat(client.lock(lockName).isLocked()).as("lock %s held in Redis", lockName).isFalse();
    }

    @Override
    protected void assertLocked(String lockName) {
        assertThat(client.lock(lockName).isLocked()).as("lock %s held in Redis", lockName).isTrue();
    }
}
