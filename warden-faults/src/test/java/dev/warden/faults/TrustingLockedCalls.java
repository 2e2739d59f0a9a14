package dev.warden.faults;

import dev.warden.Lease;
import dev.warden.LeaseLostException;
import dev.warden.LockClient;
import dev.warden.spring.LockNotAcquiredException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A mutant for the checker: {@code @Locked}'s interceptor as it was before nested calls were confirmed, written over
 * {@link dev.warden.DistributedLock} without Spring. A thread-local flag says which names this thread's outer
 * method holds; a nested call on one of them runs at once on that word alone, even when the outer lease was lost
 * (forced off by an administrator, or expired during a stall) and another client holds the lock.
 */
final class TrustingLockedCalls implements LockedSurface.Calls {
    private final LockClient client;
    private final Duration wait;
    /** The flaw's state: the names held by this thread's outer calls. */
    private final ThreadLocal<Map<String, Lease>> held = ThreadLocal.withInitial(HashMap::new);

    TrustingLockedCalls(LockClient client, Duration wait) {
        this.client = client;
        this.wait = wait;
    }

    @Override
    public void outer(String name, Consumer<Lease> body) {
        Optional<Lease> lease;
        try {
            lease = client.lock(name).tryAcquire(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (lease.isEmpty()) {
            throw new LockNotAcquiredException(name, wait);
        }
        held.get().put(name, lease.get());
        try {
            body.accept(lease.get());
        } finally {
            held.get().remove(name);
        }
        if (!lease.get().release()) {
            throw new LeaseLostException("lock '" + name + "' was lost while its method ran");
        }
    }

    /** The flaw: "already held" on this thread's word, never confirmed with Redis. */
    @Override
    public void inner(String name) {
        if (held.get().containsKey(name)) {
            return;
        }
        throw new IllegalStateException("the fault runs nest only inside an outer call");
    }

    @Override
    public void close() {
        client.close();
    }
}
