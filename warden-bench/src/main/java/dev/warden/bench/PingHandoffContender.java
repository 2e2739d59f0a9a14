package dev.warden.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * Not a lock across clients: the least a handoff costs when waiters sleep and every release goes to Redis. The
 * threads of one client queue on a fair semaphore per key; a release sends a PING and the thread that reads its
 * reply hands the semaphore to the next waiter, as Warden's grants do, so a handoff is one round trip and one
 * wake-up. It runs only where one client's threads share a key (S3, S4): it excludes nothing across clients.
 */
final class PingHandoffContender extends LettuceContender {
    private final Map<String, Semaphore> keys = new ConcurrentHashMap<>();

    PingHandoffContender(String uri) {
        super(uri);
    }

    @Override
    public String name() {
        return "ping-handoff";
    }

    @Override
    public boolean takesPart(Scenario scenario) {
        return scenario.kind == Scenario.Kind.LOCK && scenario.shared && !scenario.clientPerThread;
    }

    @Override
    public Release acquire(String key) throws InterruptedException {
        Semaphore semaphore = keys.computeIfAbsent(key, k -> new Semaphore(1, true));
        semaphore.acquire();
        return () -> connection.async().ping().thenRun(semaphore::release).toCompletableFuture().get();
    }
}
