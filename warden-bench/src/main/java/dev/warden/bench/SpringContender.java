package dev.warden.bench;

import java.net.URI;
import java.util.concurrent.locks.Lock;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * Spring Integration's RedisLockRegistry over Spring Data Redis and Lettuce, with its defaults (a 60 s expiry,
 * no renewal). In spin mode a waiter retries every 100 ms; in pub/sub mode it is woken by the release. Threads
 * of one registry first queue on a local lock per key, so only one of them at a time asks Redis.
 */
final class SpringContender implements Contender {
    private final String name;
    private final LettuceConnectionFactory factory;
    private final RedisLockRegistry registry;

    SpringContender(String uri, String name, RedisLockRegistry.RedisLockType type) {
        this.name = name;
        this.factory = connectionFactory(uri);
        this.registry = new RedisLockRegistry(factory, "bench:" + name);
        registry.setRedisLockType(type);
    }

    /** @return a started Lettuce connection factory of Spring Data Redis to the server at {@code uri} */
    static LettuceConnectionFactory connectionFactory(String uri) {
        URI parsed = URI.create(uri);
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(
                parsed.getHost(), parsed.getPort()));
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Release acquire(String key) {
        Lock lock = registry.obtain(key);
        lock.lock();
        return lock::unlock;
    }

    @Override
    public void close() {
        registry.destroy();
        factory.destroy();
    }
}
