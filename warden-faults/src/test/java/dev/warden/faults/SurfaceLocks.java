package dev.warden.faults;

import dev.warden.DistributedLock;
import dev.warden.Identity;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.MultiLease;
import dev.warden.integration.WardenLockRegistry;
import dev.warden.shedlock.WardenLockProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * Warden's other doors under the fault suite (issue #39): the {@code Lock} view, Spring Integration's registry,
 * the multi-lock, the async acquires, ShedLock's provider; and a mutant of each that models an old, broken
 * behaviour, which the checker must catch. Kinds:
 *
 * <ul>
 *   <li>{@code aslock}: {@link DistributedLock#asLock()}, reentered 0-3 times after the hold; claims only.
 *       {@code aslock-trusting}: {@link TrustingLockView}, whose reentry trusts its local hold count.</li>
 *   <li>{@code registry-renewed}, {@code registry-fixed}: {@link WardenLockRegistry} with watchdog-renewed or
 *       fixed leases ({@code registry}: a worker of each); the outer lock is an acquisition (its lease from {@link WardenLockRegistry#lease}), each
 *       reentrant {@code tryLock()} a claim. {@code registry-trusting}: a registry that ignores renewal (fixed
 *       leases of one lease) and trusts its local count on reentry.</li>
 *   <li>{@code multi}: {@link LockClient#multiLock} of two names, a client per thread (so that a part held after
 *       an empty result is the thread's own); waits of 0-30 ms so that some come back empty.
 *       {@code multi-background}: parts taken one by one, and on a miss given back in the background, after the
 *       empty result.</li>
 *   <li>{@code async}: {@code tryAcquireAsync} and {@code acquireAsync}, one in five cancelled mid-wait; every
 *       future must complete within its wait plus 5 s. {@code async-dropping}: futures completed through an
 *       executor that the close shuts down, so that an acquire ending after its client's close is never completed
 *       (as the old {@code LockBase}'s were not).</li>
 *   <li>{@code shedlock}: {@link WardenLockProvider} with {@code lockAtMostFor} of one lease and
 *       {@code lockAtLeastFor} of 0-50 ms; each reentry is an {@code extend}; claims only.
 *       {@code shedlock-trusting}: a provider whose extend trusts the lease's local deadline, not Redis.</li>
 *   <li>{@code locked}: a {@code @Locked} method in a Spring context ({@link LockedSurface}); each reentry a
 *       nested {@code @Locked} call on the same name. {@code locked-trusting}: {@link TrustingLockedCalls}, whose
 *       nested calls trust a thread-local flag.</li>
 * </ul>
 */
final class SurfaceLocks {
    /** The kinds that run beside one reference worker of plain leases (worker 0), whose intervals claims meet. */
    static final List<String> KINDS = List.of("aslock", "aslock-trusting", "registry", "registry-renewed",
            "registry-fixed", "registry-trusting", "multi", "multi-background", "async", "async-dropping", "shedlock",
            "shedlock-trusting", "locked", "locked-trusting");

    /** How long past its wait an async acquire may take before it counts as hung. */
    static final Duration ASYNC_SLACK = Duration.ofSeconds(5);

    private SurfaceLocks() {
    }

    static LockClient client(String spec, Duration lease) {
        return LockClient.create(LockTarget.configure(spec)
                .defaultLease(lease).commandTimeout(Duration.ofMillis(500)).build());
    }

    static LocksUnderTest open(String kind, String spec, Duration lease) {
        return switch (kind) {
            case "aslock" -> new Views(client(spec, lease), false);
            case "aslock-trusting" -> new Views(client(spec, lease), true);
            case "registry-renewed" -> new Registry(client(spec, lease), null, false);
            case "registry-fixed" -> new Registry(client(spec, lease), lease, false);
            case "registry-trusting" -> new Registry(client(spec, lease), lease, true);
            case "multi" -> new Multi(spec, lease, false);
            case "multi-background" -> new Multi(spec, lease, true);
            case "async" -> new Async(client(spec, lease), false);
            case "async-dropping" -> new Async(client(spec, lease), true);
            case "shedlock" -> new ShedLock(client(spec, lease), lease);
            case "shedlock-trusting" -> new TrustingShedLock(client(spec, lease), lease);
            case "locked" -> new LockedSurface(LockedSurface.spring(spec, lease));
            case "locked-trusting" -> new LockedSurface(new TrustingLockedCalls(client(spec, lease),
                    Duration.parse("PT" + LockedSurface.WAIT)));
            default -> throw new IllegalArgumentException("unknown lock kind: " + kind);
        };
    }

    /** A hold through a view: no token, no validity; reentry through the view. */
    private abstract static class ViewHeld implements LocksUnderTest.Held {
        @Override
        public long fence() {
            throw new UnsupportedOperationException("a view shows no fencing token");
        }

        @Override
        public long validUntil() {
            return -1;
        }

        @Override
        public long lostAt() {
            return -1;
        }

        @Override
        public boolean fenced() {
            return false;
        }

        @Override
        public boolean reentrant() {
            return true;
        }
    }

    /** {@code asLock()}, or the trusting copy of the old view. */
    private static final class Views implements LocksUnderTest {
        private final LockClient client;
        private final boolean trusting;
        private final Map<String, Lock> views = new ConcurrentHashMap<>();

        Views(LockClient client, boolean trusting) {
            this.client = client;
            this.trusting = trusting;
        }

        @Override
        public Held acquire(String name, Duration wait) throws InterruptedException {
            Lock view = views.computeIfAbsent(name, n -> trusting ? new TrustingLockView(client.lock(n))
                    : client.lock(n).asLock());
            if (!view.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS)) {
                return null;
            }
            return new ViewHeld() {
                @Override
                public boolean reenter() {
                    return view.tryLock();
                }

                @Override
                public void exit() {
                    view.unlock();
                }

                @Override
                public boolean release() {
                    try {
                        view.unlock();
                        return true;
                    } catch (dev.warden.LeaseLostException e) {
                        return false;
                    }
                }
            };
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** Spring Integration's registry; or one that ignores renewal and trusts its local count on reentry. */
    private static final class Registry implements LocksUnderTest {
        private final LockClient client;
        private final WardenLockRegistry registry;
        private final boolean trusting;
        /** The trusting registry's local hold counts, per thread and key. */
        private final ThreadLocal<Map<String, Integer>> counts = ThreadLocal.withInitial(java.util.HashMap::new);

        /** @param ttl null for renewed leases; a registry key of "" keeps the names the reference worker uses */
        Registry(LockClient client, Duration ttl, boolean trusting) {
            this.client = client;
            this.registry = ttl == null ? new WardenLockRegistry(client, "") : new WardenLockRegistry(client, "", ttl);
            this.trusting = trusting;
        }

        @Override
        public Held acquire(String name, Duration wait) throws InterruptedException {
            Lock lock = registry.obtain(name);
            if (!lock.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS)) {
                return null;
            }
            Lease lease = registry.lease(name).orElseThrow(() -> new IllegalStateException("held but no lease"));
            Held leased = WardenLocks.held(lease);
            return new Held() {
                @Override
                public long fence() {
                    return leased.fence();
                }

                @Override
                public long validUntil() {
                    return leased.validUntil();
                }

                @Override
                public long lostAt() {
                    return leased.lostAt();
                }

                @Override
                public boolean reentrant() {
                    return true;
                }

                @Override
                public boolean reenter() {
                    if (trusting) {
                        // The mutant: a reentrant acquire trusts the local count, never asking Redis.
                        counts.get().merge(name, 1, Integer::sum);
                        return true;
                    }
                    return lock.tryLock();
                }

                @Override
                public void exit() {
                    if (trusting) {
                        counts.get().merge(name, -1, Integer::sum);
                        return;
                    }
                    lock.unlock();
                }

                @Override
                public boolean release() {
                    try {
                        lock.unlock();
                        return true;
                    } catch (ConcurrentModificationException e) {
                        return false;
                    }
                }
            };
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** A multi-lock of two names, with a client per thread; or the mutant that gives parts back in the background. */
    private static final class Multi implements LocksUnderTest {
        private final String spec;
        private final Duration lease;
        private final boolean background;
        private final Map<Thread, LockClient> clients = new ConcurrentHashMap<>();
        private volatile boolean closed;

        /** Clients opened before the workload, one per thread of the runs (4): a new client takes seconds under load. */
        private final java.util.concurrent.ConcurrentLinkedQueue<LockClient> ready =
                new java.util.concurrent.ConcurrentLinkedQueue<>();

        Multi(String spec, Duration lease, boolean background) {
            this.spec = spec;
            this.lease = lease;
            this.background = background;
            for (int i = 0; i < 4; i++) {
                ready.add(SurfaceLocks.client(spec, lease));
            }
        }

        private LockClient client() {
            if (closed) {
                throw new IllegalStateException("closed");
            }
            return clients.computeIfAbsent(Thread.currentThread(), t -> {
                LockClient opened = ready.poll();
                return opened != null ? opened : SurfaceLocks.client(spec, lease);
            });
        }

        @Override
        public int parts() {
            return 2;
        }

        @Override
        public Held acquire(String name, Duration ignored) throws InterruptedException {
            List<String> names = new ArrayList<>(Arrays.asList(name.split("\\+")));
            // Short waits, so that some acquires come back empty with a part taken on the way.
            Duration wait = Duration.ofMillis(ThreadLocalRandom.current().nextInt(31));
            if (background) {
                return BackgroundMultiLock.acquire(client(), names, wait);
            }
            Optional<MultiLease> got = client().multiLock(names).tryAcquire(wait);
            if (got.isEmpty()) {
                return null;
            }
            MultiLease multi = got.get();
            Held leased = WardenLocks.held(multi);
            return new Held() {
                @Override
                public long fence() {
                    throw new UnsupportedOperationException("one token per part");
                }

                @Override
                public long fence(String part) {
                    return multi.fencingToken(part);
                }

                @Override
                public List<String> names() {
                    return multi.names();
                }

                @Override
                public long validUntil() {
                    return leased.validUntil();
                }

                @Override
                public boolean release() {
                    return leased.release();
                }

                @Override
                public long lostAt() {
                    return leased.lostAt();
                }
            };
        }

        /** Asks the lock server, right after the empty result, whether this thread's client still holds a part. */
        @Override
        public String heldAfterMiss(String name) {
            LockClient client = client();
            long pid = ProcessHandle.current().pid();
            long thread = Thread.currentThread().getId();
            List<String> held = new ArrayList<>();
            for (String part : name.split("\\+")) {
                Optional<Identity> holder = client.lock(part).inspect().holderIdentity();
                // Thread ids repeat across processes: a holder whose process is not recorded is not counted.
                if (holder.isPresent() && holder.get().threadId() == thread
                        && holder.get().pid().orElse(-1) == pid) {
                    held.add(part);
                }
            }
            return held.isEmpty() ? "-" : String.join("+", held);
        }

        @Override
        public void close() {
            closed = true;
            clients.values().forEach(LockClient::close);
            ready.forEach(LockClient::close);
        }
    }

    /** {@code tryAcquireAsync} or {@code acquireAsync}, some cancelled mid-wait; each future bounded. */
    private static final class Async implements LocksUnderTest {
        private final LockClient client;
        private final Map<String, DistributedLock> locks = new ConcurrentHashMap<>();
        /** The mutant's: every future is completed through it; null for Warden's own futures. */
        private final java.util.concurrent.ExecutorService relay;

        Async(LockClient client, boolean dropping) {
            this.client = client;
            this.relay = dropping ? java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                Thread thread = new Thread(r, "async-relay");
                thread.setDaemon(true);
                return thread;
            }) : null;
        }

        /**
         * The mutant's flaw: the caller's future is completed by a task on the relay, which the close shuts down;
         * an acquire that ends after it (refused, as a closed client's are) leaves its caller's future incomplete.
         */
        private <T> CompletableFuture<T> relayed(java.util.function.Supplier<CompletableFuture<T>> call) {
            if (relay == null) {
                return call.get();
            }
            CompletableFuture<T> inner;
            try {
                inner = call.get();
            } catch (RuntimeException e) {
                inner = CompletableFuture.failedFuture(e);
            }
            CompletableFuture<T> out = new CompletableFuture<>();
            CompletableFuture<T> source = inner;
            out.whenComplete((v, e) -> {
                if (out.isCancelled()) {
                    source.cancel(true);
                }
            });
            inner.whenComplete((v, e) -> {
                try {
                    relay.execute(() -> {
                        if (e != null) {
                            out.completeExceptionally(e);
                        } else {
                            out.complete(v);
                        }
                    });
                } catch (java.util.concurrent.RejectedExecutionException dropped) {
                    // Never completed.
                }
            });
            return out;
        }

        @Override
        public Held acquire(String name, Duration wait) throws InterruptedException {
            Random random = ThreadLocalRandom.current();
            // Lock objects are kept, as applications keep them: an acquire through one after its client closed
            // must still end.
            DistributedLock lock = locks.computeIfAbsent(name, client::lock);
            long bound = wait.plus(ASYNC_SLACK).toNanos();
            if (random.nextInt(5) == 0) {
                // Cancelled mid-wait: the future completes at once (cancelled), and a lock granted meanwhile must be
                // given back; if it completed first, the lease is the caller's.
                CompletableFuture<Optional<Lease>> future = relayed(() -> lock.tryAcquireAsync(wait));
                Thread.sleep(random.nextInt(30));
                future.cancel(true);
                Optional<Lease> got = await(future, bound, "cancelled tryAcquireAsync");
                return got == null || got.isEmpty() ? null : WardenLocks.held(got.get());
            }
            if (random.nextBoolean()) {
                Optional<Lease> got = await(relayed(() -> lock.tryAcquireAsync(wait)), bound, "tryAcquireAsync");
                return got == null || got.isEmpty() ? null : WardenLocks.held(got.get());
            }
            try {
                Lease got = await(relayed(() -> lock.acquireAsync(wait)), bound, "acquireAsync");
                return got == null ? null : WardenLocks.held(got);
            } catch (NotAcquired e) {
                return null;
            }
        }

        /** @return the value, or null if cancelled */
        private static <T> T await(CompletableFuture<T> future, long boundNanos, String what)
                throws InterruptedException {
            try {
                return future.get(boundNanos, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.CancellationException e) {
                return null;
            } catch (TimeoutException e) {
                future.cancel(true);
                throw new LocksUnderTest.Hung(what);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TimeoutException) {
                    throw new NotAcquired();
                }
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                throw new IllegalStateException(e.getCause());
            }
        }

        /** acquireAsync's "not acquired within the wait". */
        private static final class NotAcquired extends RuntimeException {
            private static final long serialVersionUID = 1L;

            NotAcquired() {
                super(null, null, false, false);
            }
        }

        @Override
        public void close() {
            if (relay != null) {
                relay.shutdownNow();
            }
            client.close();
        }
    }

    /** ShedLock's provider: one try per call, polled every 5 ms up to 200 ms; reentry is an extend. */
    private static final class ShedLock implements LocksUnderTest {
        private final LockClient client;
        private final WardenLockProvider provider;
        private final Duration lease;

        ShedLock(LockClient client, Duration lease) {
            this.client = client;
            this.provider = new WardenLockProvider(client);
            this.lease = lease;
        }

        @Override
        public Held acquire(String name, Duration wait) throws InterruptedException {
            Duration atLeast = Duration.ofMillis(ThreadLocalRandom.current().nextInt(51));
            long until = System.nanoTime() + Math.min(wait.toNanos(), TimeUnit.MILLISECONDS.toNanos(200));
            while (true) {
                Optional<SimpleLock> got = provider.lock(new LockConfiguration(Instant.now(), name, lease, atLeast));
                if (got.isPresent()) {
                    java.util.concurrent.atomic.AtomicReference<SimpleLock> current =
                            new java.util.concurrent.atomic.AtomicReference<>(got.get());
                    return new ViewHeld() {
                        @Override
                        public boolean reenter() {
                            Optional<SimpleLock> extended = current.get().extend(lease, Duration.ZERO);
                            extended.ifPresent(current::set);
                            return extended.isPresent();
                        }

                        @Override
                        public boolean release() {
                            current.get().unlock();
                            return true;
                        }
                    };
                }
                if (System.nanoTime() - until >= 0) {
                    return null;
                }
                Thread.sleep(5);
            }
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /**
     * The mutant of the ShedLock provider: a lock provider whose {@code extend} trusts what the process knows (the
     * lease's local deadline) instead of asking Redis, as a provider that keeps its extensions in a local timer
     * would. After an administrator forced the lock free and took it, its extend still says "extended": a claim
     * inside the administrator's hold.
     */
    private static final class TrustingShedLock implements LocksUnderTest {
        private final LockClient client;
        private final Duration lease;

        TrustingShedLock(LockClient client, Duration lease) {
            this.client = client;
            this.lease = lease;
        }

        @Override
        public Held acquire(String name, Duration wait) throws InterruptedException {
            Duration atLeast = Duration.ofMillis(ThreadLocalRandom.current().nextInt(51));
            long until = System.nanoTime() + Math.min(wait.toNanos(), TimeUnit.MILLISECONDS.toNanos(200));
            while (true) {
                Optional<dev.warden.Lease> got = client.lock(name).tryAcquire(Duration.ZERO, lease);
                if (got.isPresent()) {
                    dev.warden.Lease held = got.get();
                    return new ViewHeld() {
                        @Override
                        public boolean reenter() {
                            return held.isHeld(); // the flaw: no request to Redis
                        }

                        @Override
                        public boolean release() {
                            held.releaseAfter(atLeast);
                            return true;
                        }
                    };
                }
                if (System.nanoTime() - until >= 0) {
                    return null;
                }
                Thread.sleep(5);
            }
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
