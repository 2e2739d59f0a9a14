package dev.warden.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Not a lock across clients: the JDK's fair {@link ReentrantReadWriteLock} and fair {@link Semaphore}, shared by
 * the threads of one JVM, with no server and no network. Arrival order and the work are those of the scenario,
 * so its throughput is the most a fair read-write lock or semaphore reaches here, whatever it costs to be
 * distributed: a ceiling for S10 and S11. It runs only there, where one client's threads share the lock.
 */
final class InProcessContender implements Contender {
    private final Map<String, ReentrantReadWriteLock> readWrite = new ConcurrentHashMap<>();
    private final Map<String, Semaphore> semaphores = new ConcurrentHashMap<>();

    @Override
    public String name() {
        return "in-process";
    }

    @Override
    public boolean takesPart(Scenario scenario) {
        return scenario.kind != Scenario.Kind.LOCK && scenario.clients == 1;
    }

    @Override
    public boolean onRedis() {
        return false;
    }

    @Override
    public Release acquire(String key) {
        throw new UnsupportedOperationException("in-process runs only in S10 and S11");
    }

    @Override
    public Release acquireRead(String key) {
        Lock read = readWrite.computeIfAbsent(key, k -> new ReentrantReadWriteLock(true)).readLock();
        read.lock();
        return read::unlock;
    }

    @Override
    public Release acquireWrite(String key) {
        Lock write = readWrite.computeIfAbsent(key, k -> new ReentrantReadWriteLock(true)).writeLock();
        write.lock();
        return write::unlock;
    }

    @Override
    public Release acquirePermit(String key, int permits) throws InterruptedException {
        Semaphore semaphore = semaphores.computeIfAbsent(key, k -> new Semaphore(permits, true));
        semaphore.acquire();
        return semaphore::release;
    }

    @Override
    public void close() {
    }
}
