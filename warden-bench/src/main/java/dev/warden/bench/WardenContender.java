package dev.warden.bench;

import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import java.time.Duration;
import java.util.Optional;

/**
 * Warden with its defaults: a 30 s lease renewed by the watchdog. Its read-write lock and semaphore run too, but
 * not over a quorum, which has neither.
 */
final class WardenContender implements Contender {
    private final String name;
    private final LockClient client;

    WardenContender(String name, LockConfig.Builder config) {
        this.name = name;
        this.client = LockClient.create(config.keyPrefix("bench:" + name + ":").build());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Release acquire(String key) throws InterruptedException {
        return new Held(client.lock(key).acquire());
    }

    @Override
    public Optional<Release> tryAcquire(String key, Duration wait) throws InterruptedException {
        return client.lock(key).tryAcquire(wait).map(Held::new);
    }

    @Override
    public Release acquireRead(String key) throws InterruptedException {
        return new Held(client.readWriteLock(key).readLock().acquire());
    }

    @Override
    public Release acquireWrite(String key) throws InterruptedException {
        return new Held(client.readWriteLock(key).writeLock().acquire());
    }

    @Override
    public Release acquirePermit(String key, int permits) throws InterruptedException {
        return new Held(client.semaphore(key, permits).acquire(1));
    }

    @Override
    public boolean takesPart(Scenario scenario) {
        return scenario.kind == Scenario.Kind.LOCK || client.config().topology() != LockConfig.Topology.QUORUM;
    }

    @Override
    public void close() {
        client.close();
    }

    /** A lease, whose release tells whether it still held what it released. */
    private record Held(Lease lease) implements Release {
        @Override
        public void release() {
            lease.release();
        }

        @Override
        public boolean releaseHeld() {
            return lease.release();
        }
    }
}
