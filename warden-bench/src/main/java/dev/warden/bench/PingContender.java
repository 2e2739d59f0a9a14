package dev.warden.bench;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * Not a lock: a PING where the lock is taken and another where it is released, on Lettuce's sync API. The
 * round-trip time of two requests, below which no correct Redis lock can go; it runs only where nothing is
 * shared.
 */
final class PingContender extends LettuceContender {
    PingContender(String uri) {
        super(uri);
    }

    @Override
    public String name() {
        return "ping";
    }

    @Override
    public boolean takesPart(Scenario scenario) {
        return !scenario.shared;
    }

    @Override
    public Release acquire(String key) {
        RedisCommands<String, String> redis = connection.sync();
        redis.ping();
        return redis::ping;
    }
}
