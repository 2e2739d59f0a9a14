package dev.warden.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.security.SecureRandom;
import java.util.Base64;

/** A contender on one plain Lettuce connection: the floor, the fenced floor and the PING line. */
abstract class LettuceContender implements Contender {
    final RedisClient client;
    final StatefulRedisConnection<String, String> connection;
    private final SecureRandom random = new SecureRandom();

    LettuceContender(String uri) {
        client = RedisClient.create(uri);
        connection = client.connect();
    }

    /** @return a random owner token, as every lock here uses */
    String token() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
