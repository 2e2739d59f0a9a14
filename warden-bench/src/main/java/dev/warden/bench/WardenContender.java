package dev.warden.bench;

import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;

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
        Lease lease = client.lock(key).acquire();
        return lease::close;
    }

    @Override
    public Release acquireRead(String key) throws InterruptedException {
        Lease lease = client.readWriteLock(key).readLock().acquire();
        return lease::close;
    }

    @Override
    public Release acquireWrite(String key) throws InterruptedException {
        Lease lease = client.readWriteLock(key).writeLock().acquire();
        return lease::close;
    }

    @Override
    public Release acquirePermit(String key, int permits) throws InterruptedException {
        Lease lease = client.semaphore(key, permits).acquire(1);
        return lease::close;
    }

    @Override
    public boolean takesPart(Scenario scenario) {
        return scenario.kind == Scenario.Kind.LOCK || client.config().topology() != LockConfig.Topology.QUORUM;
    }

    @Override
    public void close() {
        client.close();
    }
}
