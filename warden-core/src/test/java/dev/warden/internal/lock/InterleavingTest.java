package dev.warden.internal.lock;

import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.internal.base.Events;
import dev.warden.internal.client.RedisLockClient;
import dev.warden.internal.script.LockKeys;
import dev.warden.internal.script.Replies;
import dev.warden.internal.script.Scripts;
import dev.warden.internal.wire.Link;
import dev.warden.internal.wire.Replicas;
import dev.warden.internal.wire.Server;
import dev.warden.internal.wire.SharedResources;
import dev.warden.internal.base.Orders;
import dev.warden.redisserver.RedisServer;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's own interleavings, run by a deterministic scheduler: the test thread is the only one that delivers
 * events to a queued waiter ({@link Acquisition}), in every order of up to three of them, including inside the window
 * between a local handover's claim and the delivery of its lease. Redis is real; the holder's side of each event
 * is what {@link RedisLease}'s release does (a grant through Redis, or a local handover settled by
 * {@code handed.lua}), sent by the test at the chosen moment, so that Redis and the waiter always agree.
 *
 * <p>After each sequence the waiter gives up if it still waits, and the test checks: the acquisition never failed
 * (a move its {@link dev.warden.internal.lease.Phase} does not allow is a bug and fails it loudly); a waiter that
 * got the lock is not queued again and its lease holds the key in Redis; afterwards it no longer listens on the
 * lock's channel, no key is held and no registration is left. Each sequence runs twice: with each event's requests answered before the next event, and
 * with the next event racing them.
 */
@Timeout(300)
class InterleavingTest {
    private static RedisServer server;
    private static RedisLockClient client;

    /** What happens to the waiter; the holder's part is modelled as {@link RedisLease} does it. */
    enum Event {
        /** A wake-up: a timer, a missed release, a reconnect. */
        WAKE,
        /** The holder releases through Redis, whose script grants the lock to the waiter (not yet announced). */
        GRANT,
        /** The grant reaches the waiter, as a release of this client passes it on. */
        DELIVER,
        /** The waiter gives up: its caller cancels. */
        GIVE_UP,
        /** The holder hands the lock over locally, and nothing happens in the handover's window. */
        HAND_OVER,
        /** A local handover with a wake-up between its claim and the delivery of the lease. */
        HAND_OVER_WAKE,
        /** A local handover with the waiter giving up between its claim and the delivery of the lease. */
        HAND_OVER_GIVE_UP,
        /** The holder reserves the waiter, which wakes meanwhile, then declines and releases through Redis. */
        DECLINE_WAKE
    }

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        client = (RedisLockClient) LockClient.create(LockConfig.builder().redisUri(server.uri()).keyPrefix("i:")
                .commandTimeout(Duration.ofSeconds(2)).build());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyOrderOfUpToThreeEventsLeavesOneOutcomeAndNothingBehind() throws Exception {
        List<List<Event>> sequences = Orders.upToThree(Event.values());
        List<String> broken = Orders.broken(sequences, "il-",
                (sequence, name, settled) -> run(sequence, name, settled));
        assertThat(broken).as("sequences run: %d", sequences.size()).isEmpty();
    }

    @Test
    void aWakeUpInsideALocalHandoverSendsNoTry() throws Exception {
        // The race fixed in ef1b3b5: a wake-up between the claim of a grant and the completion of the result sent a
        // try with the waiter's own token, which took the lock for nobody.
        assertThat(run(List.of(Event.HAND_OVER_WAKE), "il-wake-in-handover")).isNull();
        assertThat(run(List.of(Event.GRANT, Event.WAKE, Event.DELIVER), "il-wake-before-deliver")).isNull();
    }

    /**
     * A release whose script grants the lock to a waiter of this client, and that waiter's own try, sent after the
     * release and so answered after it: the release's reply must be handled first, while the waiter still waits.
     * Here the try is sent, answered and acted on before the releasing thread returns from sending its release (the
     * link below runs it there). A fault run found this (CI, 2026-11-29: another client granted a lock 3 ms after
     * the waiter's fence, while the waiter held it): with the handling attached after sending, the waiter's try made
     * the lease first, the late reply found no waiter with that token, and passed the lock on under the lease.
     */
    @Test
    void aReleasesGrantToAWaiterHereIsHandledBeforeTheWaitersOwnTryIsAnswered() throws Exception {
        grantHandledInOrder("il-late-grant", false);
    }

    /** As above, with the server's scripts flushed first: the release is sent again with its text. */
    @Test
    void aReleaseSentAgainAfterNoscriptIsStillHandledBeforeTheWaitersOwnTry() throws Exception {
        grantHandledInOrder("il-late-grant-noscript", true);
    }

    private static void grantHandledInOrder(String name, boolean flushScripts) throws Exception {
        LockContext base = ((RedisLock) client.lock(name)).context();
        SharedResources shared = SharedResources.create(base.config());
        Server connection = Server.connect(base.config(), shared);
        try {
            SlowToReturnLink link = SlowToReturnLink.of(connection.link());
            LockContext context = new LockContext(base.config(), new Scripts(link.proxy()), base.notifier(),
                    base.instanceId(), base.cluster(), base.inFlight(), base.watchdog(), base.quietRefresh(),
                    base.threadHolds(), base.pending(), base.tokens(), base.inspector(), base.await(),
                    base.scheduler(), base.callbacks(), base.events());
            RedisLock lock = new RedisLock(context, name, Replicas.NONE);
            RedisLease holder = (RedisLease) lock.tryAcquire().orElseThrow();
            Acquisition waiter = new Acquisition(lock, context, TimeUnit.SECONDS.toNanos(20), 30_000, true,
                    Events.AcquireWatch.NONE).start();
            assertThat(eventually(waiter::waitingIdle)).isTrue();
            assertThat(holder.beginRelease()).isTrue();
            context.watchdog().unregister(holder);
            if (flushScripts) {
                assertThat(server.call("SCRIPT", "FLUSH")).isEqualTo("OK");
            }
            link.afterSend = () -> {
                waiter.wake();
                boolean left = eventually(() -> waiter.result.isDone()
                        && context.notifier().waiting(waiter.token()) == null);
                assertThat(left).as("the waiter got the lock and left the notifier").isTrue();
            };
            Replies.Release status = lock.releaseQueued(holder.token, List.of()).get(5, TimeUnit.SECONDS);
            holder.released();
            assertThat(status).isInstanceOf(Replies.GrantedHere.class);
            Lease lease = waiter.result.get(5, TimeUnit.SECONDS).orElseThrow();
            assertThat(client.inFlight().awaitNone(TimeUnit.SECONDS.toNanos(5))).isTrue();
            assertThat(lease.confirm()).as("the lease still holds its lock in Redis").isTrue();
            assertThat(lease.release()).isTrue();
        } finally {
            connection.close();
            shared.close();
        }
    }

    /**
     * The client's link, whose {@link Link#dispatch} runs {@code afterSend} (once) before it returns; a proxy, since
     * a test cannot name every type of the link's methods.
     */
    private static final class SlowToReturnLink implements InvocationHandler {
        private final Link link;
        volatile ThrowingRunnable afterSend;

        private SlowToReturnLink(Link link) {
            this.link = link;
        }

        static SlowToReturnLink of(Link link) {
            return new SlowToReturnLink(link);
        }

        Link proxy() {
            return (Link) Proxy.newProxyInstance(Link.class.getClassLoader(), new Class<?>[] {Link.class}, this);
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            Object result;
            try {
                result = method.invoke(link, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            ThrowingRunnable then = afterSend;
            if (method.getName().equals("dispatch") && then != null) {
                afterSend = null;
                then.run();
            }
            return result;
        }
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Runs one sequence on a fresh lock; returns what went wrong, or null. */
    private static String run(List<Event> sequence, String name) throws Exception {
        return run(sequence, name, true);
    }

    /**
     * @param settled whether each event's requests are answered before the next event (a deterministic order), or
     *                the next event races them
     */
    private static String run(List<Event> sequence, String name, boolean settled) throws Exception {
        RedisLock lock = (RedisLock) client.lock(name);
        RedisLease holder = (RedisLease) lock.tryAcquire().orElseThrow();
        Acquisition waiter = new Acquisition(lock, lock.context(), TimeUnit.SECONDS.toNanos(20), 30_000, true,
                Events.AcquireWatch.NONE).start();
        if (!eventually(waiter::waitingIdle)) {
            return "the waiter never queued";
        }
        Holder side = new Holder(lock, holder, waiter);
        for (Event event : sequence) {
            side.apply(event);
            if (settled && !client.inFlight().awaitNone(TimeUnit.SECONDS.toNanos(5))) {
                return "requests still in flight after " + event;
            }
        }
        // Settle: a waiter still waiting gives up; the holder, if it still holds, releases.
        waiter.result.cancel(false);
        if (side.holding) {
            holder.release();
        }
        if (!client.inFlight().awaitNone(TimeUnit.SECONDS.toNanos(5))) {
            return "requests still in flight";
        }
        Optional<Lease> outcome;
        try {
            outcome = waiter.result.join();
        } catch (CancellationException e) {
            outcome = Optional.empty();
        } catch (CompletionException e) {
            return "the acquisition failed: " + e.getCause();
        }
        String key = "i:{" + name + "}";
        // Over, with or without the lock: it listens no more (Standing.LEFT), and a later release wakes nobody.
        String channel = lock.context().notifier().channel(lock.keys(), lock.queued());
        if (!eventually(() -> lock.context().notifier().listeners(channel) == 0)) {
            return "the acquisition is over but still listens on " + channel;
        }
        if (outcome.isPresent()) {
            // A waiter that got the lock sends no further try: one would queue its token again, and a later release
            // would grant the lock to a waiter that no longer exists.
            if (server.call("ZSCORE", key + ":q", waiter.token()) != null) {
                return "the waiter is queued again after it got the lock";
            }
            RedisLease lease = (RedisLease) outcome.get();
            Object value = server.call("GET", key);
            if (!(value instanceof String text) || !text.endsWith(":" + lease.token)) {
                return "a delivered lease whose key holds " + value;
            }
            if (!lease.release()) {
                return "the delivered lease could not be released";
            }
        }
        if (!eventually(() -> server.call("EXISTS", key + ":q", key + ":r").equals(0L))) {
            return "a registration was left: " + server.call("ZRANGE", key + ":q", "0", "-1");
        }
        Object value = server.call("GET", key);
        if (value instanceof String text && text.contains(":")) {
            return "the lock is still held: " + value;
        }
        return null;
    }

    /** The holder's side, as {@link RedisLease}'s release does it, sent by the test thread when asked. */
    private static final class Holder {
        private final RedisLock lock;
        private final RedisLease lease;
        private final Acquisition waiter;
        private boolean holding = true;
        private Replies.GrantedHere grant;

        Holder(RedisLock lock, RedisLease lease, Acquisition waiter) {
            this.lock = lock;
            this.lease = lease;
            this.waiter = waiter;
        }

        void apply(Event event) throws Exception {
            switch (event) {
                case WAKE -> waiter.wake();
                case GRANT -> releaseThroughRedis();
                case DELIVER -> {
                    if (grant != null) {
                        waiter.assigned(grant.fence(), grant.arm(), grant.upcoming());
                        grant = null;
                    }
                }
                case GIVE_UP -> waiter.result.cancel(false);
                case HAND_OVER -> handOver(() -> { });
                case HAND_OVER_WAKE -> handOver(waiter::wake);
                case HAND_OVER_GIVE_UP -> handOver(() -> waiter.result.cancel(false));
                case DECLINE_WAKE -> {
                    if (holding && waiter.reserve()) {
                        waiter.wake();
                        waiter.unreserve();
                        releaseThroughRedis();
                    }
                }
            }
        }

        /** A release through Redis by the holder's token: the script grants the lock to the oldest waiter. */
        private void releaseThroughRedis() throws Exception {
            if (!holding || !lease.beginRelease()) {
                return;
            }
            holding = false;
            lock.context().watchdog().unregister(lease);
            sendRelease();
        }

        /** The release script of a release already begun. */
        private void sendRelease() throws Exception {
            LockContext context = lock.context();
            Replies.Release status = context.scripts().releaseQueued(lock.keys(), lease.token, context.instanceId(),
                    List.of()).get(5, TimeUnit.SECONDS);
            lease.released();
            if (status instanceof Replies.GrantedHere here) {
                grant = here;
            }
        }

        /** A local handover: reserve, take over (with {@code inWindow} between claim and delivery), settle. */
        private void handOver(Runnable inWindow) throws Exception {
            if (!holding) {
                return;
            }
            if (!waiter.reserve()) {
                // Nobody to hand over to: the release goes through Redis.
                releaseThroughRedis();
                return;
            }
            if (!lease.beginRelease()) {
                throw new AssertionError("the holder's lease was released behind the test's back");
            }
            holding = false;
            lock.context().watchdog().unregister(lease);
            // As RedisLease does: the settling request goes out first in the window, before the new holder's.
            List<CompletableFuture<Boolean>> check = new ArrayList<>();
            RedisLease successor = waiter.takeOver(lease, lock.context().ticker().read(), null, () -> {
                check.add(lock.context().scripts().handed(lock.keys(), lease.token, waiter.token()));
                inWindow.run();
            });
            if (successor == null) {
                waiter.unreserve();
                sendRelease();
                return;
            }
            boolean held = check.get(0).get(5, TimeUnit.SECONDS);
            lease.released();
            if (!held) {
                throw new AssertionError("the key lost the token during a handover");
            }
        }
    }

    private static boolean eventually(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() - end < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(1);
        }
        return condition.getAsBoolean();
    }

    /**
     * A {@code NOSCRIPT} answer (the server lost its scripts: a restart, a failover, {@code SCRIPT FLUSH}) is heard
     * by every way a script is sent: the scripts that settle a local handover, which go by SHA only while the server
     * is known to hold them, then go by their text again.
     */
    @Test
    void aRefusalBehindAWaitIsHeardByTheScriptsThatSettleHandovers() throws Exception {
        RedisLock lock = (RedisLock) client.lock("il-noscript");
        Scripts scripts = lock.context().scripts();
        LockKeys keys = lock.keys();
        // The handover's script goes by its text and is loaded; once the load has answered, it goes by its SHA. (A
        // test before this one may have flushed the scripts this client had loaded: the first call then fails, and
        // the next goes by its text.)
        long bySha = evalshaCalls();
        for (int i = 0; i < 100 && evalshaCalls() == bySha; i++) {
            try {
                scripts.handed(keys, "holder", "waiter").get(5, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e).hasRootCauseInstanceOf(io.lettuce.core.RedisNoScriptException.class);
            }
        }
        assertThat(evalshaCalls()).as("the handover's script went by its SHA").isGreaterThan(bySha);
        scripts.handed(keys, "holder", "waiter").get(5, TimeUnit.SECONDS);
        assertThat(server.call("SCRIPT", "FLUSH")).isEqualTo("OK");
        // Only a script followed by WAIT hears that the server lost its scripts (no replica: WAIT answers 0).
        scripts.acquire(keys, "token", 30_000, Scripts.Try.FIRST, Replicas.of(1, Duration.ofMillis(10)))
                .get(5, TimeUnit.SECONDS);
        // Refused by SHA, a handover's script fails (it must not be sent again behind the new holder's requests).
        assertThat(scripts.handed(keys, "holder", "waiter").get(5, TimeUnit.SECONDS)).isFalse();
    }

    private static long evalshaCalls() {
        String info = (String) server.call("INFO", "commandstats");
        for (String line : info.split("\r\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                String calls = line.substring(line.indexOf("calls=") + 6);
                return Long.parseLong(calls.substring(0, calls.indexOf(',')));
            }
        }
        return 0;
    }
}
