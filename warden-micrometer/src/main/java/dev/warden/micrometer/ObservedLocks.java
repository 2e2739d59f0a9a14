package dev.warden.micrometer;

import dev.warden.DistributedLock;
import dev.warden.DistributedMultiLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.DistributedSemaphore;
import dev.warden.Leadership;
import dev.warden.LeadershipListener;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockInfo;
import dev.warden.ReadWriteLockInfo;
import dev.warden.SemaphoreInfo;
import io.micrometer.observation.ObservationRegistry;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Wraps a {@link LockClient} so that each acquire call of its locks is a Micrometer
 * {@link io.micrometer.observation.Observation} named {@value ObservedLock#NAME}: a trace then shows how long the
 * call waited for the lock, inside the span of the code that called it, and an observation handler may time it.
 * Metrics of the whole client, background work included, come from {@link WardenMetrics}; the two go together.
 *
 * <pre>{@code
 * LockClient locks = ObservedLocks.wrap(LockClient.create(config), observationRegistry);
 * }</pre>
 *
 * <p>Key values: {@code lock} (low cardinality; the name, mapped as {@link #wrap(LockClient, ObservationRegistry,
 * Function)} says), {@code outcome} ({@code acquired}, {@code not_acquired}, {@code failed}), and
 * {@code lock.name} (high cardinality: the name itself). A failed call's exception is the observation's error.
 * {@link DistributedLock#asLock()} views are not observed, nor are semaphores; the halves of a read-write lock and
 * multi-locks are.
 */
public final class ObservedLocks {
    private ObservedLocks() {
    }

    /**
     * As {@link #wrap(LockClient, ObservationRegistry, Function)} with the lock's name as its {@code lock} key
     * value.
     *
     * @throws NullPointerException if an argument is null
     */
    public static LockClient wrap(LockClient client, ObservationRegistry registry) {
        return wrap(client, registry, Function.identity());
    }

    /**
     * Returns a client whose locks observe their acquire calls; closing it closes {@code client}.
     *
     * @param client   the client to wrap
     * @param registry where the observations go
     * @param lockTag  maps a lock's name to its low-cardinality {@code lock} key value (a pattern, say, when names
     *                 are unbounded); a null result leaves the key value out
     * @return the wrapped client
     * @throws NullPointerException if an argument is null
     */
    public static LockClient wrap(LockClient client, ObservationRegistry registry, Function<String, String> lockTag) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(lockTag, "lockTag");
        return new LockClient() {
            @Override
            public DistributedLock lock(String name) {
                return new ObservedLock(client.lock(name), registry, lockTag);
            }

            /** Both halves observed, as locks are. */
            @Override
            public DistributedReadWriteLock readWriteLock(String name) {
                DistributedReadWriteLock lock = client.readWriteLock(name);
                DistributedLock read = new ObservedLock(lock.readLock(), registry, lockTag);
                DistributedLock write = new ObservedLock(lock.writeLock(), registry, lockTag);
                return new DistributedReadWriteLock() {
                    @Override
                    public String name() {
                        return lock.name();
                    }

                    @Override
                    public DistributedLock readLock() {
                        return read;
                    }

                    @Override
                    public DistributedLock writeLock() {
                        return write;
                    }

                    @Override
                    public ReadWriteLockInfo inspect() {
                        return lock.inspect();
                    }

                    @Override
                    public CompletableFuture<ReadWriteLockInfo> inspectAsync() {
                        return lock.inspectAsync();
                    }

                    @Override
                    public OptionalLong forceRelease() {
                        return lock.forceRelease();
                    }

                    @Override
                    public CompletableFuture<OptionalLong> forceReleaseAsync() {
                        return lock.forceReleaseAsync();
                    }
                };
            }

            /** Not observed: given as the wrapped client gives it. */
            @Override
            public DistributedSemaphore semaphore(String name, int permits) {
                return client.semaphore(name, permits);
            }

            /** Observed as one lock, named by its locks' names joined with commas. */
            @Override
            public DistributedMultiLock multiLock(Collection<String> names) {
                return new ObservedMultiLock(client.multiLock(names), registry, lockTag);
            }

            /** Not observed: the wrapped client's candidate (its terms are counted by {@link WardenMetrics}). */
            @Override
            public Leadership leadership(String name, LeadershipListener listener) {
                return client.leadership(name, listener);
            }

            @Override
            public LockConfig config() {
                return client.config();
            }

            @Override
            public List<LockInfo> locks(String pattern, int limit) {
                return client.locks(pattern, limit);
            }

            @Override
            public CompletableFuture<List<LockInfo>> locksAsync(String pattern, int limit) {
                return client.locksAsync(pattern, limit);
            }

            @Override
            public List<ReadWriteLockInfo> readWriteLocks(String pattern, int limit) {
                return client.readWriteLocks(pattern, limit);
            }

            @Override
            public CompletableFuture<List<ReadWriteLockInfo>> readWriteLocksAsync(String pattern, int limit) {
                return client.readWriteLocksAsync(pattern, limit);
            }

            @Override
            public List<SemaphoreInfo> semaphores(String pattern, int limit) {
                return client.semaphores(pattern, limit);
            }

            @Override
            public CompletableFuture<List<SemaphoreInfo>> semaphoresAsync(String pattern, int limit) {
                return client.semaphoresAsync(pattern, limit);
            }

            @Override
            public void close() {
                client.close();
            }

            @Override
            public String toString() {
                return "Observed" + client;
            }
        };
    }
}
