package dev.warden.internal.share;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.HeldTimers;
import dev.warden.internal.client.RedisLockClient;
import dev.warden.internal.script.Replies;
import dev.warden.internal.script.ShareKeys;
import dev.warden.internal.base.Orders;
import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The interleavings of a shared lock's waiter ({@link ShareAcquisition}), run as {@code lock.InterleavingTest} runs
 * the single lock's: the test thread alone delivers events to one queued waiter, in every order of up to three of
 * them, against a real Redis. The holders' side of each event is what {@link ShareLease}'s release does: a release
 * through Redis whose script grants the waiter its share (announced only when the test delivers it), the real
 * release with its local handover ({@link ShareWaiters#reserveNext}, {@link ShareAcquisition#takeOver},
 * {@code share-handed.lua}), or that handover written out here with a wake-up or a give-up inside its window, or a
 * reservation that is declined. The waiter's own timers are held ({@link HeldTimers}), so that nothing but the
 * test's events moves it.
 *
 * <p>Two shapes: a semaphore of 2 permits held by two leases of 1, whose waiter asks for 1 (so that one holder's
 * grant through Redis and the other's local handover can both reach it), and a read-write lock whose writer holds
 * it while a reader waits (a writer's handover to its reader). After each sequence the waiter gives up if it still
 * waits and the holders still holding release, and the test checks: the acquisition never failed and no event threw
 * (a move its {@link dev.warden.internal.lease.Phase} does not allow fails it loudly); the waiter has at most one
 * lease; a waiter that got a share holds it in Redis (its entry in the state and the holders) and is not queued;
 * once its lease is released too, no permit is in use, no holder, queue entry or registration is left, and the
 * client keeps no lease or waiter of the lock. Each sequence runs twice: with each event's requests answered before
 * the next event, and with the next event racing them. Every order of up to three of the eight events is run for
 * both shapes (2 x 584 sequences, each twice).
 */
@Timeout(300)
class ShareInterleavingTest {
    private static final String PREFIX = "si:";
    private static final long LEASE_MILLIS = 30_000;
    private static RedisServer server;
    private static RedisLockClient client;
    private static ShareContext context;
    private static HeldTimers timers;

    /** What happens to the waiter; the holders' part is modelled as {@link ShareLease} does it. */
    enum Event {
        /** A wake-up: a timer, a reconnect. */
        WAKE,
        /** A holder releases through Redis, whose script grants the waiter its share (not yet announced). */
        GRANT,
        /** The grants reach the waiter, as a release of this client passes them on ({@link ShareLock#release}). */
        DELIVER,
        /** The waiter gives up: its caller cancels. */
        GIVE_UP,
        /** A holder releases as {@link ShareLease} does: a local handover if the waiter is next and fits. */
        HAND_OVER,
        /** A local handover with a wake-up between the waiter's commitment and the delivery of its lease. */
        HAND_OVER_WAKE,
        /** A local handover with the waiter giving up between its commitment and the delivery of its lease. */
        HAND_OVER_GIVE_UP,
        /** A holder reserves the waiter, which wakes meanwhile, then declines and releases through Redis. */
        DECLINE_WAKE
    }

    /** The lock and who holds it at the start. */
    enum Shape {
        /** A semaphore of 2 permits, two holders of 1; the waiter asks for 1. */
        SEMAPHORE(ShareKeys.Kind.SEMAPHORE, 2, new long[] {1, 1}, 1),
        /** A read-write lock: its writer holds it; the waiter is a reader. */
        WRITER_TO_READER(ShareKeys.Kind.READ_WRITE, ShareLock.READ_WRITE_CAPACITY,
                new long[] {ShareLock.READ_WRITE_CAPACITY}, 1);

        final ShareKeys.Kind kind;
        final long capacity;
        final long[] holders;
        final long asks;

        Shape(ShareKeys.Kind kind, long capacity, long[] holders, long asks) {
            this.kind = kind;
            this.capacity = capacity;
            this.holders = holders;
            this.asks = asks;
        }
    }

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        timers = new HeldTimers(Set.of(ShareAcquisition.class));
        client = (RedisLockClient) LockClient.create(LockConfig.builder().redisUri(server.uri()).keyPrefix(PREFIX)
                .commandTimeout(Duration.ofSeconds(2)).scheduler(timers).build());
        // The client's context of shared locks, through a view of this package.
        context = ((ShareView) client.readWriteLock("si-context").readLock()).context();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (timers != null) {
            timers.shutdownNow();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyOrderOfUpToThreeEventsLeavesOneOutcomeAndNothingBehind() throws Exception {
        List<List<Event>> sequences = Orders.upToThree(Event.values());
        List<String> broken = new ArrayList<>();
        for (Shape shape : Shape.values()) {
            Orders.broken(sequences, "si-" + shape.ordinal() + "-",
                    (sequence, name, settled) -> run(shape, sequence, name, settled))
                    .forEach(problem -> broken.add(shape + " " + problem));
        }
        assertThat(broken).as("sequences run: %d per shape", sequences.size()).isEmpty();
    }

    @Test
    void aGrantThroughRedisAndAHandoverOfTheOtherHolderLeaveTheWaiterOneShare() throws Exception {
        // share-handed.lua (16ea8c9): a waiter that a release granted a share meanwhile keeps that one, and the
        // holder's share is freed; lent a second time, the waiter's permits would be counted twice.
        assertThat(run(Shape.SEMAPHORE, List.of(Event.GRANT, Event.HAND_OVER), "si-grant-then-handover", true))
                .isNull();
        assertThat(run(Shape.SEMAPHORE, List.of(Event.GRANT, Event.HAND_OVER_WAKE, Event.DELIVER),
                "si-grant-handover-deliver", true)).isNull();
    }


    /**
     * Runs one sequence on a fresh lock; returns what went wrong, or null.
     *
     * @param settled whether each event's requests are answered before the next event, or the next event races them
     */
    private static String run(Shape shape, List<Event> sequence, String name, boolean settled) throws Exception {
        ShareLock share = new ShareLock(context, name, shape.kind, shape.capacity);
        List<ShareLease> holders = new ArrayList<>();
        for (long permits : shape.holders) {
            Optional<Lease> held = new ShareAcquisition(share, share.context(), permits, 0, LEASE_MILLIS, true, "",
                    Thread.currentThread(), Events.AcquireWatch.NONE).start().result.get(5, TimeUnit.SECONDS);
            if (held.isEmpty()) {
                return "a holder did not get its share";
            }
            holders.add((ShareLease) held.get());
        }
        ShareAcquisition waiter = new ShareAcquisition(share, share.context(), shape.asks,
                TimeUnit.SECONDS.toNanos(20), LEASE_MILLIS, true, "", Thread.currentThread(),
                Events.AcquireWatch.NONE).start();
        if (!client.inFlight().awaitNone(TimeUnit.SECONDS.toNanos(5)) || waiter.place().score() == 0
                || !waiter.place().waiting()) {
            return "the waiter never queued";
        }
        Holders side = new Holders(shape, share, holders, waiter);
        for (Event event : sequence) {
            try {
                side.apply(event);
            } catch (RuntimeException | AssertionError e) {
                return event + " threw " + e;
            }
            if (settled && !client.inFlight().awaitNone(TimeUnit.SECONDS.toNanos(5))) {
                return "requests still in flight after " + event;
            }
        }
        // Settle: a waiter still waiting gives up; the holders still holding release as ShareLease does.
        waiter.result.cancel(false);
        for (int i = 0; i < holders.size(); i++) {
            if (side.holding[i] && !holders.get(i).releaseRequest().get(5, TimeUnit.SECONDS)) {
                return "holder " + i + " had lost its share";
            }
        }
        if (!client.inFlight().awaitNone(TimeUnit.SECONDS.toNanos(5))) {
            return "requests still in flight";
        }
        timers.drop();
        Optional<Lease> outcome;
        try {
            outcome = waiter.result.join();
        } catch (CancellationException e) {
            outcome = Optional.empty();
        } catch (CompletionException e) {
            return "the acquisition failed: " + e.getCause();
        }
        String state = share.keys().state();
        String token = waiter.token();
        List<ShareLease> leases = context.watchdog().leases().stream().filter(l -> l.token().equals(token)).toList();
        if (leases.size() > (outcome.isPresent() ? 1 : 0)
                || (outcome.isPresent() && !leases.contains(outcome.get()))) {
            return "the waiter's leases with the watchdog: " + leases + ", its outcome " + outcome;
        }
        if (outcome.isPresent()) {
            if (server.call("ZSCORE", state + ":q", token) != null) {
                return "the waiter is still queued after it got its share";
            }
            Object entry = server.call("HGET", state, token);
            if (!(entry instanceof String text) || !text.startsWith(shape.asks + ":")
                    || server.call("ZSCORE", state + ":h", token) == null) {
                return "a delivered lease whose share in Redis is " + entry;
            }
            if (!((ShareLease) outcome.get()).releaseRequest().get(5, TimeUnit.SECONDS)) {
                return "the delivered lease could not be released";
            }
        }
        if (!eventually(() -> server.call("EXISTS", state + ":h", state + ":q", state + ":r").equals(0L))) {
            return "holders or registrations were left: holders " + server.call("ZRANGE", state + ":h", "0", "-1")
                    + ", queue " + server.call("ZRANGE", state + ":q", "0", "-1");
        }
        Object used = server.call("HGET", state, "used");
        if (used != null && !"0".equals(used)) {
            return "permits still in use with no holder: " + used;
        }
        if (context.notifier().waiting(token) != null
                || context.watchdog().leases().stream().anyMatch(l -> l.shareKeys().equals(share.keys()))) {
            return "the client still keeps the waiter or a lease of the lock";
        }
        return null;
    }

    /** The holders' side, as {@link ShareLease}'s release does it, sent by the test thread when asked. */
    private static final class Holders {
        private final Shape shape;
        private final ShareLock share;
        private final List<ShareLease> leases;
        private final boolean[] holding;
        private final ShareAcquisition waiter;
        /** Grants to the waiter made by releases through Redis, not yet announced. */
        private final List<Replies.Grant> grants = new ArrayList<>();

        Holders(Shape shape, ShareLock share, List<ShareLease> leases, ShareAcquisition waiter) {
            this.shape = shape;
            this.share = share;
            this.leases = leases;
            this.holding = new boolean[leases.size()];
            Arrays.fill(holding, true);
            this.waiter = waiter;
        }

        void apply(Event event) throws Exception {
            switch (event) {
                case WAKE -> waiter.wake();
                case GRANT -> {
                    int next = next();
                    if (next >= 0) {
                        releaseThroughRedis(next);
                    }
                }
                case DELIVER -> {
                    for (Replies.Grant grant : grants) {
                        waiter.assigned(grant.fence(), grant.arm(), null);
                    }
                    grants.clear();
                }
                case GIVE_UP -> waiter.result.cancel(false);
                case HAND_OVER -> {
                    int next = next();
                    if (next >= 0) {
                        holding[next] = false;
                        if (!leases.get(next).releaseRequest().get(5, TimeUnit.SECONDS)) {
                            throw new AssertionError("holder " + next + " had lost its share on release");
                        }
                    }
                }
                case HAND_OVER_WAKE -> handOver(waiter::wake);
                case HAND_OVER_GIVE_UP -> handOver(() -> waiter.result.cancel(false));
                case DECLINE_WAKE -> {
                    int next = next();
                    if (next >= 0 && !reserve(next).isEmpty()) {
                        waiter.wake();
                        waiter.unreserve();
                        releaseThroughRedis(next);
                    }
                }
            }
        }

        /** @return the first holder still holding, or -1 */
        private int next() {
            for (int i = 0; i < holding.length; i++) {
                if (holding[i]) {
                    return i;
                }
            }
            return -1;
        }

        private List<ShareAcquisition> reserve(int holder) {
            ShareLease lease = leases.get(holder);
            return context.waiters().reserveNext(share.keys(), shape.holders[holder], lease.leaseMillis);
        }

        /** A release through Redis by the holder's token: the script lends its share to the oldest waiters. */
        private void releaseThroughRedis(int holder) throws Exception {
            ShareLease lease = leases.get(holder);
            if (!lease.beginRelease()) {
                throw new AssertionError("holder " + holder + " was released behind the test's back");
            }
            holding[holder] = false;
            forget(lease);
            sendRelease(lease);
        }

        /** The release script of a release already begun; the grants it made to the waiter are kept to deliver. */
        private void sendRelease(ShareLease lease) throws Exception {
            Replies.ShareReleased released = context.scripts().release(share.keys(), share.kind(), lease.token(),
                    context.instanceId()).get(5, TimeUnit.SECONDS);
            lease.released();
            if (!released.held()) {
                throw new AssertionError("a holder's share was gone on release");
            }
            for (Replies.Grant grant : released.grants()) {
                if (grant.token().equals(waiter.token())) {
                    grants.add(grant);
                }
            }
        }

        /** As ShareLease's release: off the watchdog, and no longer the thread's share. */
        private static void forget(ShareLease lease) {
            context.watchdog().unregister(lease);
            context.threadShares().remove(lease);
        }

        /**
         * A local handover as {@link ShareLease} makes it: reserve the next in line, commit it, send the script
         * that moves the share, give the watchdog the successor, run {@code inWindow}, then deliver; a waiter that
         * cannot take it over is unreserved and the release goes through Redis.
         */
        private void handOver(Runnable inWindow) throws Exception {
            int next = next();
            if (next < 0) {
                return;
            }
            ShareLease lease = leases.get(next);
            List<ShareAcquisition> reserved = reserve(next);
            if (reserved.isEmpty()) {
                // Nobody to hand over to: the release goes through Redis, as ShareLease's does.
                releaseThroughRedis(next);
                return;
            }
            if (!reserved.equals(List.of(waiter))) {
                throw new AssertionError("reserved " + reserved);
            }
            if (!lease.beginRelease()) {
                throw new AssertionError("holder " + next + " was released behind the test's back");
            }
            holding[next] = false;
            forget(lease);
            ShareLease successor = waiter.takeOver(lease, context.ticker().read());
            if (successor == null) {
                waiter.unreserve();
                sendRelease(lease);
                return;
            }
            CompletableFuture<Optional<long[]>> moved = context.scripts().handed(share.keys(), share.kind(),
                    lease.token(), context.instanceId(), List.of(Map.entry(waiter.token(), waiter.permits())));
            // The watchdog gets the successor once the script is sent, as ShareLease gives it.
            context.watchdog().handOver(lease, successor);
            inWindow.run();
            waiter.deliver(successor);
            Optional<long[]> fences;
            try {
                fences = moved.get(5, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError("the handover's script failed", e.getCause());
            }
            lease.released();
            if (fences.isEmpty()) {
                throw new AssertionError("the holder's share was gone during a handover");
            }
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
