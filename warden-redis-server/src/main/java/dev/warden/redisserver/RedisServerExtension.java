package dev.warden.redisserver;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real {@code redis-server} for a JUnit 5 test class: started before its first test, killed after its last.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServerExtension REDIS = new RedisServerExtension();
 *
 * @Test
 * void locks() {
 *     LockClient client = LockClient.create(LockConfig.builder().redisUri(REDIS.server().uri()).build());
 * }
 * }</pre>
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {
    private RedisServer server;

    /** Starts nothing yet: the server starts before the class's first test. */
    public RedisServerExtension() {
    }

    /**
     * @return the running server
     * @throws IllegalStateException outside the test class's lifetime
     */
    public RedisServer server() {
        if (server == null) {
            throw new IllegalStateException("the Redis server runs from before the first test to after the last");
        }
        return server;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = RedisServer.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
