package dev.warden.faults;

import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A deliberately broken lock, to prove the checker can fail. {@code DEL}: fixed lease, released by a plain DEL
 * that removes whoever holds the lock now. {@code GET_SET}: renewed by GET then SET with a pause in between, so
 * a renewal can overwrite the lock of the next owner.
 */
final class NaiveLocks implements LocksUnderTest {
    enum Flaw { DEL, GET_SET }

    private final RedisClient redisClient;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final Duration lease;
    private final Flaw flaw;

    NaiveLocks(String uri, Duration lease, Flaw flaw) {
        this.redisClient = RedisClient.create(uri);
        this.connection = redisClient.connect();
        this.redis = connection.sync();
        this.lease = lease;
        this.flaw = flaw;
    }

    @Override
    public Held acquire(String name, Duration wait) throws InterruptedException {
        String key = "naive:" + name;
        String token = UUID.randomUUID().toString();
        long end = System.nanoTime() + wait.toNanos();
        while (true) {
            long sentAt = System.nanoTime();
            synchronized (redis) {
                if ("OK".equals(redis.set(key, token, SetArgs.Builder.nx().px(lease.toMillis())))) {
                    long fence = redis.incr(key + ":fence");
                    return new NaiveHeld(key, token, fence, sentAt);
                }
            }
            if (System.nanoTime() - end >= 0) {
                return null;
            }
            Thread.sleep(2);
        }
    }

    @Override
    public void close() {
        connection.close();
        redisClient.shutdown();
    }

    private final class NaiveHeld implements Held {
        private final String key;
        private final String token;
        private final long fence;
        private final AtomicLong validUntil;
        private final AtomicBoolean released = new AtomicBoolean();
        private final Thread renewer;

        NaiveHeld(String key, String token, long fence, long sentAt) {
            this.key = key;
            this.token = token;
            this.fence = fence;
            this.validUntil = new AtomicLong(sentAt + lease.toNanos());
            this.renewer = flaw == Flaw.GET_SET ? startRenewer() : null;
        }

        private Thread startRenewer() {
            Thread thread = new Thread(() -> {
                try {
                    while (!released.get()) {
                        Thread.sleep(lease.toMillis() / 3);
                        long sentAt = System.nanoTime();
                        String current;
                        synchronized (redis) {
                            current = redis.get(key);
                        }
                        if (!token.equals(current)) {
                            return;
                        }
                        // The flaw: the lock may expire and be taken during this gap, and the SET overwrites it.
                        Thread.sleep(lease.toMillis());
                        synchronized (redis) {
                            redis.set(key, token, SetArgs.Builder.px(lease.toMillis()));
                        }
                        validUntil.set(sentAt + lease.toNanos() + lease.toNanos());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "naive-renewer");
            thread.setDaemon(true);
            thread.start();
            return thread;
        }

        @Override
        public long fence() {
            return fence;
        }

        @Override
        public long validUntil() {
            long until = validUntil.get();
            return System.nanoTime() - until < 0 ? until : -1;
        }

        @Override
        public boolean release() {
            released.set(true);
            if (renewer != null) {
                renewer.interrupt();
            }
            synchronized (redis) {
                return redis.del(key) == 1;
            }
        }

        @Override
        public long lostAt() {
            return -1;
        }
    }
}
