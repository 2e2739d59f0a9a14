package dev.warden.integration;

import dev.warden.Lease;
import dev.warden.LockClient;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * A Spring Integration lock registry on Warden: replaces {@code RedisLockRegistry} by changing one bean.
 *
 * <pre>{@code
 * @Bean
 * WardenLockRegistry lockRegistry(LockClient client) {
 *     return new WardenLockRegistry(client, "orders");        // was: new RedisLockRegistry(factory, "orders")
 * }
 * }</pre>
 *
 * <p>Its locks behave as Spring Integration documents for its registries: {@link #obtain} gives the same lock for
 * the same key while it is cached; a lock is reentrant for the thread that holds it (the outermost
 * {@code lock()} takes a Warden lease, the matching outermost {@code unlock()} releases it); an {@code unlock()}
 * by a thread that does not hold it throws {@link IllegalStateException}; an {@code unlock()} after the lease was
 * lost throws {@link java.util.ConcurrentModificationException}, as {@code RedisLockRegistry}'s does.
 *
 * <p>No lock reports itself held when the lease under it is known lost, locally or by Redis's answer. Every
 * reentrant acquire asks Redis, in one round trip that changes nothing ({@link Lease#confirm()}), as
 * {@code RedisLockRegistry}'s do. If the lease was lost (it expired, or was taken away and perhaps taken by another
 * process), a reentrant {@code tryLock} returns {@code false}, as {@code RedisLockRegistry}'s does when another
 * process holds the lock, and {@code lock()}/{@code lockInterruptibly()} throw {@link dev.warden.LeaseLostException}
 * (where {@code RedisLockRegistry}'s would wait for the lock and take it again unnoticed). Either way the hold count
 * stays as it was, so the caller's unlocks still balance, and the outermost {@code unlock()} throws
 * {@link java.util.ConcurrentModificationException}. Unlike {@code RedisLockRegistry}, a reentrant acquire never takes
 * an expired lock back, even when nobody else took it: what it protected was unguarded meanwhile. {@link #lease}
 * is empty for a lost lease, and {@link #renewLock(Object)} throws. If Redis fails to answer, a reentrant acquire
 * throws {@link dev.warden.LockException} with the hold count unchanged.
 *
 * <p>Leases: by default, each is renewed by Warden's watchdog for as long as it is held, so a long task never loses
 * its lock to an expiry, and a dead process's lock ends with its lease ({@code LockConfig.defaultLease}). With
 * {@link #WardenLockRegistry(LockClient, String, Duration)}, leases are fixed, as {@code RedisLockRegistry}'s
 * {@code expireAfter}: {@link #renewLock(Object, Duration)} then moves their expiry in Redis, and
 * {@link #setRenewalTaskScheduler} has them renewed automatically. Waiting is Warden's: queued in Redis, woken by
 * the release, no polling (there is no {@code idleBetweenTries}).
 *
 * <p>The client stays the caller's: the registry neither creates nor closes it. {@link #destroy()} (which a Spring
 * context calls) stops the scheduled renewals.
 */
public final class WardenLockRegistry implements ExpirableLockRegistry<DistributedLock>,
        RenewableLockRegistry<DistributedLock>, DisposableBean {
    private final LockClient client;
    private final String registryKey;
    private final Duration expireAfter;
    private final Map<String, WardenRegistryLock> locks = new ConcurrentHashMap<>();
    private final Renewals renewals = new Renewals();

    /**
     * A registry whose leases the watchdog renews while they are held.
     *
     * @param client      the client whose locks it hands out
     * @param registryKey the prefix of every lock name ({@code registryKey:key}), as {@code RedisLockRegistry}'s
     * @throws NullPointerException if an argument is null
     */
    public WardenLockRegistry(LockClient client, String registryKey) {
        this(null, client, registryKey);
    }

    /**
     * A registry whose leases last {@code expireAfter} unless renewed with {@link #renewLock(Object, Duration)}, as
     * {@code RedisLockRegistry}'s.
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code expireAfter} is shorter than one millisecond
     */
    public WardenLockRegistry(LockClient client, String registryKey, Duration expireAfter) {
        this(Objects.requireNonNull(expireAfter, "expireAfter"), client, registryKey);
    }

    /** @param expireAfter null for leases the watchdog renews */
    private WardenLockRegistry(Duration expireAfter, LockClient client, String registryKey) {
        this.client = Objects.requireNonNull(client, "client");
        this.registryKey = Objects.requireNonNull(registryKey, "registryKey");
        if (expireAfter != null && expireAfter.toMillis() < 1) {
            throw new IllegalArgumentException("expireAfter must be at least 1 ms: " + expireAfter);
        }
        this.expireAfter = expireAfter;
    }

    /**
     * @param lockKey a string
     * @return the lock for {@code lockKey}: the same object while it is cached
     * @throws IllegalArgumentException if {@code lockKey} is not a {@link String}
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        String key = key(lockKey);
        return locks.computeIfAbsent(key, k -> new WardenRegistryLock(k, client.lock(name(k)), expireAfter,
                renewals));
    }

    /**
     * Forgets the cached locks that are not held in this process and were not used for {@code age} milliseconds; a
     * later {@link #obtain} makes a new one.
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.nanoTime();
        long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
        locks.values().removeIf(lock -> !lock.heldInThisProcess() && now - lock.lastUsed() > ageNanos);
    }

    /**
     * Renews the fixed leases this registry hands out on {@code scheduler}, as {@code RedisLockRegistry} does: from
     * each outermost acquire of a fixed lease (the registry's {@code expireAfter}, or the TTL of {@code lock(ttl)}
     * and {@code tryLock(wait, ttl)}) until its unlock, the lease is extended by its TTL in Redis every third of the
     * TTL ({@link Lease#extend}), so it stays held while its holder works and still ends one TTL after the process
     * dies. {@link #renewLock(Object, Duration)} moves the renewals to the new TTL. A renewal that finds the lease
     * lost stops, and the lease is lost then ({@link Lease#onLost} callbacks run, {@link #lease} is empty, the
     * {@code unlock()} throws); one that cannot reach Redis tries again a period later, until the lease's local
     * deadline. Leases the watchdog renews (the registry's default without {@code expireAfter}) are renewed already:
     * the scheduler is accepted and does nothing for them. Applies to acquires after this call; {@link #destroy()}
     * cancels every renewal. If the scheduler refuses a renewal (it was shut down, say), the acquire throws what it
     * threw and holds nothing: a fixed lease is never handed out unrenewed by surprise.
     *
     * @param scheduler where the renewals run
     * @throws NullPointerException if {@code scheduler} is null
     */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler scheduler) {
        renewals.scheduler(scheduler);
    }

    /**
     * Cancels every scheduled renewal and schedules no more: held fixed leases then end when their TTL runs out.
     * Locks keep working, without scheduled renewals. Idempotent; a Spring context calls it at shutdown.
     */
    @Override
    public void destroy() {
        renewals.close();
    }

    /**
     * Checks that the calling thread holds the lock and its lease, asking Redis; with fixed leases, moves its expiry
     * {@code expireAfter} from now.
     *
     * @throws IllegalStateException if the calling thread does not hold the lock
     * @throws dev.warden.LeaseLostException if the lease was lost
     */
    @Override
    public void renewLock(Object lockKey) {
        held(lockKey).renew(expireAfter);
    }

    /**
     * Moves the expiry of the lease the calling thread holds to {@code ttl} from now, in Redis.
     *
     * @throws IllegalStateException if the calling thread does not hold the lock, or holds it with a lease the
     *                               watchdog renews (it does not expire while held; fixed leases come from
     *                               {@link #WardenLockRegistry(LockClient, String, Duration)}, or from
     *                               {@code lock(ttl)} and {@code tryLock(wait, ttl)})
     * @throws dev.warden.LeaseLostException if the lease was found lost
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        // A lease from lock(ttl) or tryLock(wait, ttl) is fixed even in a registry of renewed leases.
        held(lockKey).renew(ttl);
    }

    /**
     * The lease of the calling thread's hold on a lock, for its fencing token.
     *
     * @return the lease, or empty if the calling thread does not hold the lock, or holds it with a lease known lost
     * @throws IllegalArgumentException if {@code lockKey} is not a {@link String}
     */
    public Optional<Lease> lease(Object lockKey) {
        WardenRegistryLock lock = locks.get(key(lockKey));
        return lock == null ? Optional.empty() : lock.leaseOfCurrentThread();
    }

    private WardenRegistryLock held(Object lockKey) {
        WardenRegistryLock lock = locks.get(key(lockKey));
        if (lock == null) {
            throw new IllegalStateException("lock '" + lockKey + "' is not held by this thread");
        }
        return lock;
    }

    private static String key(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lock keys must be strings: " + lockKey);
        }
        return key;
    }

    private String name(String key) {
        return registryKey.isEmpty() ? key : registryKey + ":" + key;
    }

    @Override
    public String toString() {
        return "WardenLockRegistry{" + registryKey + ", " + (expireAfter == null ? "renewed" : "expireAfter="
                + expireAfter) + "}";
    }
}
