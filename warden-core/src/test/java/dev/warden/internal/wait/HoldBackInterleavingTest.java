package dev.warden.internal.wait;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.HeldTimers;
import dev.warden.internal.client.RedisLockClient;
import dev.warden.internal.lease.LeaseBase;
import dev.warden.internal.lock.Acquisition;
import dev.warden.internal.lock.LockContext;
import dev.warden.internal.lock.RedisLock;
import dev.warden.internal.base.Orders;
import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The hold-back in the notifier ({@link HoldBack}: which lease of this client holds the lock and which one's
 * release is on its way), in fair mode and in the default mode, driven by a deterministic scheduler as
 * {@code lock.InterleavingTest} drives a single waiter: the test thread alone delivers the events, in every order of
 * up to three of them, to one lock of one client on a real Redis. The waiters' timers are held
 * ({@link HeldTimers}): a held-back waiter's bound (fair mode's 500 µs, the default mode's second) and a waiter's
 * wait for its next try run only when the test fires them.
 *
 * <p>At the start a waiter of this client holds the lock (granted through Redis in fair mode, taken over locally
 * in the default mode; either way the notifier knows it as the holder) and a second waiter of this client is queued
 * behind it. In the default mode a later release goes through Redis only once a run of local handovers has lasted
 * 100 ms, so the sequences mostly exercise the local handover there; {@code LocalHandoverTest} covers the release
 * through Redis that registers held-back waiters. The events: a new waiter of this client arrives
 * (its first try is held back, {@link Notifier#defer}, while a lease of this client holds the lock or is being
 * released); the holder releases as {@code RedisLease} does (passing the lock on to the next waiter of this client,
 * {@link Notifier#passOn} in fair mode, {@link Notifier#reserveHead} in the default mode, which may take a held-back
 * waiter that never sent a request; or granting through Redis, registering the held-back waiters first, {@link Notifier#board},
 * and ending its hold-back when it answers, {@link Notifier#ended}); the held timers fire (a wake-up: a held-back
 * waiter tries on its own); the oldest waiter gives up; the lock is force-released and its holder finds its lease
 * lost; the lock is force-released and its holder learns so only when it releases.
 *
 * <p>After each sequence every lease is released as it comes, until every waiter has ended, and the test checks:
 * no acquisition failed; the waiters got the lock in the order they arrived; every waiter ended without its own
 * timer firing, since each is woken by an event (a release that boards or grants it, the end of the lease that
 * held it back), and within a bound; afterwards the lock is free, no queue entry or registration is left, the
 * client keeps no lease, waiter or hold-back of the lock, and a new waiter's first try is not held back. Each
 * sequence runs twice: with each event's requests answered before the next event, and with the next event racing
 * them. Every order of up to three of the six events is run (258 sequences, each twice).
 */
@Timeout(300)
class HoldBackInterleavingTest {
    private static final String PREFIX = "fi:";
    private static final long LEASE_MILLIS = 30_000;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static RedisServer server;
    private static RedisLockClient fairClient;
    private static RedisLockClient defaultClient;
    private static HeldTimers timers;

    enum Event {
        /** A new waiter of this client: its first try is held back while a lease of this client holds the lock. */
        ARRIVE,
        /** The holder releases: a local handover, or a release through Redis that boards the held-back waiters. */
        RELEASE,
        /** The waiters' timers fire: a held-back waiter tries on its own, a waiting one tries again. */
        WAKE,
        /** The oldest waiter still waiting gives up: its caller cancels. */
        GIVE_UP,
        /** The lock is force-released, and its holder finds its lease lost (a renewal, a confirm). */
        LOSE,
        /** The lock is force-released; its holder learns so only when it releases. */
        FORCE
    }

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        timers = new HeldTimers(Set.of(Acquisition.class));
        fairClient = client(true);
        defaultClient = client(false);
    }

    private static RedisLockClient client(boolean fair) {
        return (RedisLockClient) LockClient.create(LockConfig.builder().redisUri(server.uri()).keyPrefix(PREFIX)
                .fair(fair).commandTimeout(Duration.ofSeconds(2)).scheduler(timers).build());
    }

    private static RedisLockClient client(String mode) {
        return mode.equals("fair") ? fairClient : defaultClient;
    }

    @AfterAll
    static void stop() {
        for (RedisLockClient client : new RedisLockClient[] {fairClient, defaultClient}) {
            if (client != null) {
                client.close();
            }
        }
        if (timers != null) {
            timers.shutdownNow();
        }
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"fair", "default"})
    void everyOrderOfUpToThreeEventsKeepsArrivalOrderAndLeavesNothingBehind(String mode) throws Exception {
        List<List<Event>> sequences = Orders.upToThree(Event.values());
        List<String> broken = Orders.broken(sequences, mode + "-",
                (sequence, name, settled) -> run(client(mode), sequence, name, settled));
        assertThat(broken).as("sequences run: %d", sequences.size()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"fair", "default"})
    void aLostLeaseHoldsNoWaiterBack(String mode) throws Exception {
        // The notifier ends a lost lease's hold-back (RedisLease.afterLoss -> Notifier.ended, da91045): the waiter
        // it held back tries at once (here no other waiter is left to be woken by the forced release), and later
        // waiters are not held back for a lease that is gone (here the lease that took the lock over locally).
        RedisLockClient client = client(mode);
        assertThat(run(client, List.of(Event.ARRIVE, Event.GIVE_UP, Event.LOSE), mode + "-lose-held-back", true))
                .isNull();
        assertThat(run(client, List.of(Event.RELEASE, Event.LOSE), mode + "-lose-after-handover", true)).isNull();
    }

    /**
     * Runs one sequence on a fresh lock; returns what went wrong, or null.
     *
     * @param settled whether each event's requests are answered before the next event, or the next event races them
     */
    private static String run(RedisLockClient client, List<Event> sequence, String name, boolean settled)
            throws Exception {
        RedisLock lock = (RedisLock) client.lock(name);
        Scene scene = new Scene(client, lock);
        String problem = scene.setUp();
        if (problem != null) {
            return problem;
        }
        for (Event event : sequence) {
            try {
                scene.apply(event);
            } catch (RuntimeException | AssertionError e) {
                return event + " threw " + e;
            }
            if (settled && !client.inFlight().awaitNone(TimeUnit.SECONDS.toNanos(5))) {
                return "requests still in flight after " + event;
            }
        }
        problem = scene.settle();
        timers.drop();
        return problem != null ? problem : scene.leftBehind();
    }

    /** One lock, its waiters in the order they arrived, and the leases they got. */
    private static final class Scene {
        private final RedisLockClient client;
        private final RedisLock lock;
        private final LockContext context;
        private final String key;
        private final List<Waiter> waiters = new ArrayList<>();
        /** Arrival numbers of the waiters, in the order they got the lock. Guarded by itself. */
        private final List<Integer> granted = new ArrayList<>();
        /** The leases the waiters got, in that order. Guarded by {@link #granted}. */
        private final List<LeaseBase> leases = new ArrayList<>();
        /** The leases the test released (or found lost). */
        private final Set<LeaseBase> done = new HashSet<>();

        Scene(RedisLockClient client, RedisLock lock) {
            this.client = client;
            this.lock = lock;
            this.context = lock.context();
            this.key = PREFIX + "{" + lock.name() + "}";
        }

        /**
         * A holder that the notifier does not know, two waiters queued behind it; its release grants the first
         * (fair mode) or hands it the lock (the default mode).
         */
        String setUp() throws Exception {
            Optional<Lease> first = lock.start(0, LEASE_MILLIS, true, Events.AcquireWatch.NONE)
                    .get(5, TimeUnit.SECONDS);
            if (first.isEmpty()) {
                return "the first holder did not get the lock";
            }
            arrive();
            arrive();
            if (!client.inFlight().awaitNone(TimeUnit.SECONDS.toNanos(5))
                    || !server.call("ZCARD", key + ":q").equals(2L)) {
                return "the waiters never queued: " + server.call("ZRANGE", key + ":q", "0", "-1");
            }
            if (!((LeaseBase) first.get()).releaseRequest().get(5, TimeUnit.SECONDS)) {
                return "the first holder had lost the lock";
            }
            if (!client.inFlight().awaitNone(TimeUnit.SECONDS.toNanos(5)) || current() == null) {
                return "the first waiter did not get the lock";
            }
            return null;
        }

        void apply(Event event) throws Exception {
            switch (event) {
                case ARRIVE -> arrive();
                case RELEASE -> {
                    LeaseBase holder = current();
                    if (holder != null) {
                        done.add(holder);
                        holder.releaseRequest().get(5, TimeUnit.SECONDS);
                    }
                }
                case WAKE -> timers.fire();
                case GIVE_UP -> {
                    for (Waiter waiter : waiters) {
                        if (!waiter.result.isDone()) {
                            waiter.result.cancel(false);
                            break;
                        }
                    }
                }
                case LOSE -> {
                    LeaseBase holder = current();
                    lock.forceReleaseRequest().get(5, TimeUnit.SECONDS);
                    if (holder != null && holder.confirmAsync().get(5, TimeUnit.SECONDS)) {
                        throw new AssertionError("a force-released lease was confirmed");
                    }
                }
                case FORCE -> lock.forceReleaseRequest().get(5, TimeUnit.SECONDS);
            }
        }

        /** A new waiter of this client, with its outcome recorded as it comes. */
        private void arrive() {
            Set<Acquisition> before = new HashSet<>(context.pending().all());
            int number = waiters.size();
            CompletableFuture<Optional<Lease>> result = lock.start(WAIT_NANOS, LEASE_MILLIS, true,
                    Events.AcquireWatch.NONE);
            // Found among those pending, unless it ended already (it took a free lock at once).
            Acquisition acquisition = context.pending().all().stream().filter(a -> !before.contains(a))
                    .findFirst().orElse(null);
            if (acquisition == null ? !result.isDone() : acquisition.result != result) {
                throw new AssertionError("another acquisition started meanwhile");
            }
            waiters.add(new Waiter(result, acquisition == null ? null : acquisition.token()));
            result.whenComplete((lease, error) -> {
                if (lease != null && lease.isPresent()) {
                    synchronized (granted) {
                        granted.add(number);
                        leases.add((LeaseBase) lease.get());
                    }
                }
            });
        }

        /** The lease that holds the lock as far as this client knows: the last one granted and not yet released. */
        private LeaseBase current() {
            synchronized (granted) {
                for (int i = leases.size() - 1; i >= 0; i--) {
                    LeaseBase lease = leases.get(i);
                    if (!done.contains(lease) && lease.isHeld()) {
                        return lease;
                    }
                }
            }
            return null;
        }

        /**
         * Releases every lease as it comes until every waiter has ended, firing no timer: each waiter must be
         * woken by an event. Returns what went wrong, or null.
         */
        String settle() throws Exception {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (true) {
                if (!client.inFlight().awaitNone(TimeUnit.SECONDS.toNanos(5))) {
                    return "requests still in flight while settling";
                }
                List<LeaseBase> open;
                synchronized (granted) {
                    open = leases.stream().filter(lease -> !done.contains(lease)).toList();
                }
                for (LeaseBase lease : open) {
                    done.add(lease);
                    lease.releaseRequest().get(5, TimeUnit.SECONDS);
                }
                if (open.isEmpty() && waiters.stream().allMatch(waiter -> waiter.result.isDone())) {
                    break;
                }
                if (open.isEmpty() && System.nanoTime() - end > 0) {
                    List<Integer> waiting = new ArrayList<>();
                    for (int i = 0; i < waiters.size(); i++) {
                        if (!waiters.get(i).result.isDone()) {
                            waiting.add(i);
                        }
                    }
                    return "waiters " + waiting + " wait forever (no event will end their wait; held timers: "
                            + timers.pending() + ")";
                }
                if (open.isEmpty()) {
                    Thread.sleep(1);
                }
            }
            List<Integer> order;
            synchronized (granted) {
                order = new ArrayList<>(granted);
            }
            for (int i = 1; i < order.size(); i++) {
                if (order.get(i) < order.get(i - 1)) {
                    return "the waiters got the lock in the order " + order + ", not the order they arrived";
                }
            }
            for (int i = 0; i < waiters.size(); i++) {
                try {
                    waiters.get(i).result.join();
                } catch (CancellationException e) {
                    // It gave up.
                } catch (CompletionException e) {
                    return "waiter " + i + " failed: " + e.getCause();
                }
            }
            return null;
        }

        /** What the lock and the client keep after every waiter and lease ended; null if nothing. */
        String leftBehind() throws InterruptedException {
            if (!eventually(() -> server.call("EXISTS", key + ":q", key + ":r").equals(0L))) {
                return "a registration was left: " + server.call("ZRANGE", key + ":q", "0", "-1");
            }
            Object value = server.call("GET", key);
            if (value instanceof String text && text.contains(":")) {
                return "the lock is still held: " + value;
            }
            // A lost lease stays with the watchdog until its next tick drops it; none may still be active.
            if (context.watchdog().leases().stream()
                    .anyMatch(lease -> lease.keys().equals(lock.keys()) && lease.active())) {
                return "the watchdog still renews a lease of the lock";
            }
            for (Waiter waiter : waiters) {
                if (waiter.token != null && context.notifier().waiting(waiter.token) != null) {
                    return "the notifier still knows a waiter that ended";
                }
            }
            Probe probe = new Probe();
            if (context.notifier().defer(lock.keys(), probe)) {
                context.notifier().undefer(lock.keys(), probe);
                return "a new waiter's first try is still held back for a lease that ended";
            }
            return null;
        }
    }

    /**
     * A waiter of the scene.
     *
     * @param result its acquisition's result
     * @param token  its token, or null if it ended before the test could see it
     */
    private record Waiter(CompletableFuture<Optional<Lease>> result, String token) {
    }

    /** A waiter that only asks whether its first try would be held back. */
    private static final class Probe implements Notifier.Waiter {
        @Override
        public void wake() {
        }

        @Override
        public boolean reserve() {
            return false;
        }

        @Override
        public void unreserve() {
        }

        @Override
        public String token() {
            return "probe";
        }

        @Override
        public long leaseMillis() {
            return LEASE_MILLIS;
        }
    }

    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() - end < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(1);
        }
        return condition.getAsBoolean();
    }
}
