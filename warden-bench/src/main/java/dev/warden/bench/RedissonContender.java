package dev.warden.bench;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson with its defaults (watchdog on): {@code redisson} with its RLock in the lock scenarios, its
 * RReadWriteLock in the read-write one and its RSemaphore in the semaphore one; {@code redisson-fair} with its fair
 * lock, in the lock scenarios only; {@code redisson-expirable} with its RPermitExpirableSemaphore, in the semaphore
 * scenario only. A semaphore's permits are set once per name ({@code trySetPermits}), before its first acquire.
 */
final class RedissonContender implements Contender {
    private final RedissonClient client;
    private final String name;
    /** Null for {@code redisson-expirable}, which has semaphores only. */
    private final Function<String, RLock> locks;
    /** Per semaphore name, what takes one permit and returns its release. */
    private final Map<String, Callable<Release>> semaphores = new ConcurrentHashMap<>();

    RedissonContender(String uri, String name, Function<RedissonClient, Function<String, RLock>> kind) {
        Config config = new Config();
        config.useSingleServer().setAddress(uri);
        this.client = Redisson.create(config);
        this.name = name;
        this.locks = kind == null ? null : kind.apply(client);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean takesPart(Scenario scenario) {
        return switch (scenario.kind) {
            case LOCK -> locks != null;
            case READ_WRITE -> name.equals("redisson");
            case SEMAPHORE -> !name.equals("redisson-fair");
        };
    }

    @Override
    public Release acquire(String key) {
        RLock lock = locks.apply(key(key));
        lock.lock();
        return lock::unlock;
    }

    /** {@code tryLock(wait, unit)}: the watchdog renews the lock while held; only its acquirer may unlock it. */
    @Override
    public Optional<Release> tryAcquire(String key, Duration wait) throws InterruptedException {
        RLock lock = locks.apply(key(key));
        if (!lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
            return Optional.empty();
        }
        return Optional.of(lock::unlock);
    }

    @Override
    public Release acquireRead(String key) {
        RLock lock = client.getReadWriteLock(key(key)).readLock();
        lock.lock();
        return lock::unlock;
    }

    @Override
    public Release acquireWrite(String key) {
        RLock lock = client.getReadWriteLock(key(key)).writeLock();
        lock.lock();
        return lock::unlock;
    }

    @Override
    public Release acquirePermit(String key, int permits) throws Exception {
        return semaphores.computeIfAbsent(key(key), semaphore -> semaphore(semaphore, permits)).call();
    }

    private Callable<Release> semaphore(String semaphore, int permits) {
        if (locks == null) {
            RPermitExpirableSemaphore expirable = client.getPermitExpirableSemaphore(semaphore);
            expirable.trySetPermits(permits);
            return () -> {
                String permit = expirable.acquire();
                return () -> expirable.release(permit);
            };
        }
        RSemaphore plain = client.getSemaphore(semaphore);
        plain.trySetPermits(permits);
        return () -> {
            plain.acquire();
            return plain::release;
        };
    }

    private String key(String key) {
        return "bench:" + name + ":" + key;
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
