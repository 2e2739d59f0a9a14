package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.internal.base.HeldTimers;
import dev.warden.internal.wait.Notifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A renewed lease passes its lock to a waiter of the same client without a request, within bounds; a waiter that
 * comes while its client holds the lock waits for that holder without a request of its own.
 */
class LocalHandoverTest extends RedisTestSupport {

    /** A ticker on System.nanoTime that a test can move forward, or stop. */
    static final class TestTicker implements Ticker {
        private final AtomicLong offset = new AtomicLong();
        private volatile boolean frozen;
        private volatile long frozenAt;

        @Override
        public long read() {
            return frozen ? frozenAt : System.nanoTime() + offset.get();
        }

        void advance(Duration by) {
            offset.addAndGet(by.toNanos());
        }

        void freeze() {
            frozenAt = read();
            frozen = true;
        }
    }

    @Test
    void releasePassesTheLockToAWaiterOfTheSameClientWithoutARequest() throws Exception {
        passOn(false);
    }

    @Test
    void aLeaseThatTookTheLockOverGetsAFenceAboveItsPredecessorsWhenItAsks() throws Exception {
        passOn(true);
    }

    private void passOn(boolean fenced) throws Exception {
        String name = uniqueName();
        LockClient client = client();
        // Every script this test counts is known to the server already (a first call is sent twice).
        try (Lease warm = client.lock(uniqueName()).tryAcquire().orElseThrow()) {
            warm.fencingToken();
        }
        Lease holder = client.lock(name).tryAcquire().orElseThrow();
        long fence = fenced ? holder.fencingToken() : 0;
        CompletableFuture<Lease> next = client.lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitQueuedInOneClient(name, 1);
        String key = "test:{" + name + "}";
        Object value = server.call("GET", key);
        long scripts = scriptCalls();
        long sets = calls("set");
        assertThat(holder.release()).isTrue();
        Lease handed = next.get(10, TimeUnit.SECONDS);
        assertThat(handed.isHeld()).isTrue();
        assertThat(holder.isHeld()).isFalse();
        // The key still holds the same token: nothing was written to pass the lock on, and the one script the
        // release sent only checked the key and removed the waiter's registration.
        assertThat(scriptCalls() - scripts).isEqualTo(1);
        assertThat(calls("set") - sets).isZero();
        assertThat(server.call("GET", key)).isEqualTo(value);
        long issued = handed.fencingToken();
        assertThat(issued).isGreaterThan(fence);
        assertThat(scriptCalls() - scripts).isEqualTo(2);
        assertThat(client.lock(name).inspect().lastFencingToken()).isEqualTo(issued);
        // The waiter's registration, made when its try found the lock held, is gone.
        assertThat(eventually(Duration.ofSeconds(5), () -> queueGone(name))).isTrue();
        assertThat(handed.release()).isTrue();
        assertThat(client.lock(name).isLocked()).isFalse();
    }

    /** Counts down when a waiter of the lock starts waiting (the listener's onWaiting). */
    private static final class WaitingLatch implements LockListener {
        private final String lock;
        private final java.util.concurrent.Semaphore waiting = new java.util.concurrent.Semaphore(0);

        WaitingLatch(String lock) {
            this.lock = lock;
        }

        @Override
        public void onWaiting(String name) {
            if (name.equals(lock)) {
                waiting.release();
            }
        }

        /** Forgets the waits reported so far, and any still on their way from the client's callback thread. */
        void reset() {
            waiting.drainPermits();
        }

        void await() throws InterruptedException {
            assertThat(waiting.tryAcquire(10, TimeUnit.SECONDS)).as("a waiter of %s started waiting", lock).isTrue();
        }
    }

    /**
     * A lock of a new client, held by a lease that Redis granted it ({@link #heldHere(LockClient, String)}), and the
     * client's waiting latch, which counts the waits from then on.
     */
    private record HeldHere(String name, WaitingLatch latch, LockClient client, Lease holder) {
    }

    private HeldHere heldHere() throws Exception {
        String name = uniqueName();
        WaitingLatch latch = new WaitingLatch(name);
        LockClient client = client(b -> b.listener(latch));
        Lease holder = heldHere(client, name);
        // Only the waits that come next count (the setup's waiter may report its own late, or not at all if the
        // grant overtook its try's reply).
        latch.reset();
        return new HeldHere(name, latch, client, holder);
    }

    /**
     * A holder that a release of another client granted the lock to through Redis: the client knows it holds the
     * lock, so its next waiters hold back (Notifier.defer), and it has made no local handover yet, so that its
     * release may hand over however long the test took so far (a run of them is bounded to 100 ms).
     */
    private Lease heldHere(LockClient client, String name) throws Exception {
        // Every script this test counts is known to the server already (a first call is sent twice).
        try (Lease warm = client.lock(uniqueName()).tryAcquire().orElseThrow()) {
            warm.fencingToken();
        }
        Lease first = client().lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Lease> second = client.lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitQueuedInOneClient(name, 1);
        assertThat(first.release()).isTrue();
        Lease holder = second.get(10, TimeUnit.SECONDS);
        assertThat(eventually(Duration.ofSeconds(5), () -> queueGone(name))).isTrue();
        return holder;
    }

    @Test
    void aWaiterThatComesWhileItsClientHoldsTheLockTakesItOverWithoutARequestOfItsOwn() throws Exception {
        HeldHere held = heldHere();
        String name = held.name();
        WaitingLatch latch = held.latch();
        LockClient client = held.client();
        Lease holder = held.holder();
        String key = "test:{" + name + "}";
        Object value = server.call("GET", key);
        // Scripts only: a first try that is a SET NX (it is not, where the client waited for the lock lately) is
        // followed by a script try when it fails, and this client's identity record is written with SET meanwhile.
        long scripts = scriptCalls();
        CompletableFuture<Lease> next = client.lock(name).acquireAsync(Duration.ofSeconds(20));
        latch.await();
        // Waiting, and neither registered nor tried: its first try is held back for the holder of its own client.
        assertThat(queued(name)).isZero();
        assertThat(scriptCalls() - scripts).isZero();
        assertThat(holder.release()).isTrue();
        Lease handed = next.get(10, TimeUnit.SECONDS);
        assertThat(handed.isHeld()).isTrue();
        // One request in all, for the waiter and the handover: the release's check (handed.lua).
        assertThat(scriptCalls() - scripts).isEqualTo(1);
        assertThat(server.call("GET", key)).isEqualTo(value);
        assertThat(handed.confirm()).isTrue();
        assertThat(handed.release()).isTrue();
        assertThat(client.lock(name).isLocked()).isFalse();
        assertThat(queueGone(name)).isTrue();
    }

    @Test
    void aHeldBackWaiterWhoseWaitRunsOutEndsWithoutARequest() throws Exception {
        HeldHere held = heldHere();
        String name = held.name();
        LockClient client = held.client();
        Lease holder = held.holder();
        long scripts = scriptCalls();
        Optional<Lease> none = client.lock(name).tryAcquireAsync(Duration.ofMillis(200)).get(10, TimeUnit.SECONDS);
        assertThat(none).isEmpty();
        assertThat(scriptCalls() - scripts).isZero();
        assertThat(queued(name)).isZero();
        assertThat(holder.release()).isTrue();
        assertThat(client.lock(name).isLocked()).isFalse();
    }

    @Test
    void aReleaseThatKeepsTheLockForAWhileEndsTheHoldBackAtOnce() throws Exception {
        HeldHere held = heldHere();
        String name = held.name();
        WaitingLatch latch = held.latch();
        LockClient client = held.client();
        Lease holder = held.holder();
        CompletableFuture<Lease> next = client.lock(name).acquireAsync(Duration.ofSeconds(20));
        latch.await();
        assertThat(queued(name)).isZero();
        // The lease ends without a release script that could register the waiter: the waiter tries at once (and
        // registers, the key being held for 400 ms more), not after its hold-back's bound of a second.
        assertThat(holder.releaseAfter(Duration.ofMillis(400))).isTrue();
        await(() -> queued(name) == 1 || next.isDone(), Duration.ofMillis(700),
                "the held-back waiter tried on its own");
        Lease lease = next.get(10, TimeUnit.SECONDS);
        assertThat(lease.release()).isTrue();
        assertThat(eventually(Duration.ofSeconds(5), () -> queueGone(name))).isTrue();
    }

    @Test
    void aReleaseThroughRedisRegistersTheHeldBackWaitersBehindOtherClientsWaiters() throws Exception {
        HeldHere held = heldHere();
        String name = held.name();
        LockClient client = held.client();
        Lease holder = held.holder();
        LockClient other = client();
        CompletableFuture<Lease> remote = other.lock(name).acquireAsync(Duration.ofSeconds(20));
        await(() -> queued(name) == 1, Duration.ofSeconds(5), "the other client's waiter queued");
        // A waiter that asks for another lease cannot take the holder's over: the release goes through Redis.
        CompletableFuture<Optional<Lease>> local = client.lock(name)
                .tryAcquireAsync(Duration.ofSeconds(20), Duration.ofSeconds(10));
        held.latch().await();
        assertThat(queued(name)).isEqualTo(1);
        assertThat(holder.release()).isTrue();
        // The release registered the held-back waiter behind the other client's, and granted the lock to that one.
        Lease first = remote.get(10, TimeUnit.SECONDS);
        await(() -> queued(name) == 1, Duration.ofSeconds(5), "the held-back waiter registered by the release");
        assertThat(local).isNotDone();
        assertThat(first.release()).isTrue();
        Lease second = local.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(second.isHeld()).isTrue();
        assertThat(second.release()).isTrue();
        assertThat(eventually(Duration.ofSeconds(5), () -> queueGone(name))).isTrue();
        assertThat(client.lock(name).isLocked()).isFalse();
    }

    @Test
    void aWaiterHeldBackWhenTheLocksChannelLingersOutIsStillHandedTheLock() throws Exception {
        // The hold-back lives in the lock's channel in the notifier, which expires 2 s after its last waiter that
        // tried left. Here the channel's linger (a timer of the notifier, held) runs while a waiter is held back:
        // the channel must stay, so that the holder's release still finds the waiter.
        HeldTimers timers = new HeldTimers(Set.of(Notifier.class));
        try {
            String name = uniqueName();
            WaitingLatch latch = new WaitingLatch(name);
            LockClient client = client(b -> b.listener(latch).scheduler(timers));
            Lease holder = heldHere(client, name);
            latch.reset();
            String key = "test:{" + name + "}";
            Object value = server.call("GET", key);
            CompletableFuture<Lease> next = client.lock(name).acquireAsync(Duration.ofSeconds(20));
            latch.await();
            assertThat(queued(name)).isZero();
            assertThat(timers.fire()).as("the channel's linger ran").isPositive();
            assertThat(holder.release()).isTrue();
            Lease handed = next.get(10, TimeUnit.SECONDS);
            // Handed over locally (the key keeps the holder's token), not taken after the hold-back's 1 s bound.
            assertThat(server.call("GET", key)).isEqualTo(value);
            assertThat(handed.release()).isTrue();
            assertThat(eventually(Duration.ofSeconds(5), () -> queueGone(name))).isTrue();
        } finally {
            timers.shutdownNow();
        }
    }

    @Test
    void aHandoverAfterRedisLostTheLockReleasesFalseAndBothLeasesAreLost() throws Exception {
        String name = uniqueName();
        LockClient client = client();
        Lease holder = client.lock(name).tryAcquire().orElseThrow();
        AtomicInteger lost = new AtomicInteger();
        holder.onLost(lost::incrementAndGet);
        CompletableFuture<Lease> next = client.lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitQueuedInOneClient(name, 1);
        // Redis lost the key (a restart without its data) and another client took the lock; the holder's lease
        // still has most of its time by the local clock, so the waiter takes it over before Redis is asked.
        String key = "test:{" + name + "}";
        server.call("SET", key, "7:intruder", "PX", "30000");
        assertThat(holder.release()).isFalse();
        // onLost runs on the client's callback thread.
        assertThat(eventually(Duration.ofSeconds(5), () -> lost.get() == 1)).isTrue();
        Lease handed = next.get(10, TimeUnit.SECONDS);
        assertThat(handed.isHeld()).isFalse();
        assertThat(server.call("GET", key)).isEqualTo("7:intruder");
    }

    @Test
    void aLeaseThatARedisGrantGaveAWaiterPassesTheLockOnLocallyToo() throws Exception {
        String name = uniqueName();
        LockClient other = client();
        LockClient client = client();
        client.lock(uniqueName()).tryAcquire().orElseThrow().release();
        Lease holder = other.lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Lease> first = client.lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitQueuedInOneClient(name, 1);
        CompletableFuture<Lease> second = client.lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitQueuedInOneClient(name, 2);
        assertThat(holder.release()).isTrue();
        // The grant gives the waiter 5 s, not its 30 s lease, until the watchdog renews it: still enough to pass on.
        Lease granted = first.get(10, TimeUnit.SECONDS);
        String key = "test:{" + name + "}";
        Object value = server.call("GET", key);
        long scripts = scriptCalls();
        assertThat(granted.release()).isTrue();
        Lease handed = second.get(10, TimeUnit.SECONDS);
        assertThat(handed.isHeld()).isTrue();
        assertThat(scriptCalls() - scripts).isEqualTo(1);
        assertThat(server.call("GET", key)).isEqualTo(value);
        assertThat(handed.release()).isTrue();
        assertThat(client.lock(name).isLocked()).isFalse();
    }

    @Test
    void aLeaseWithLessThanHalfOfAGrantsLeaseLeftReleasesThroughRedis() throws Exception {
        TestTicker ticker = new TestTicker();
        String name = uniqueName();
        LockClient client = client(b -> b.ticker(ticker).defaultLease(Duration.ofSeconds(30)));
        // The release script is known to the server already (a first call is sent twice).
        client.lock(uniqueName()).tryAcquire().orElseThrow().release();
        Lease holder = client.lock(name).tryAcquire().orElseThrow();
        // A release grants a renewed waiter 5 s until the watchdog renews it; the holder has less than half of that
        // left by the local clock. Before the waiter's try: the lease a grant gives it counts from that try.
        ticker.advance(Duration.ofSeconds(28));
        CompletableFuture<Lease> next = client.lock(name).acquireAsync(Duration.ofSeconds(60));
        awaitQueuedInOneClient(name, 1);
        String key = "test:{" + name + "}";
        Object value = server.call("GET", key);
        long scripts = scriptCalls();
        assertThat(holder.release()).isTrue();
        Lease handed = next.get(10, TimeUnit.SECONDS);
        // Handed over by the release script, to the waiter's own token.
        assertThat(scriptCalls() - scripts).isEqualTo(1);
        assertThat(server.call("GET", key)).isNotEqualTo(value);
        assertThat(handed.release()).isTrue();
    }

    @Test
    void atMostEightLocalHandoversInARowThenTheReleaseGoesToRedis() throws Exception {
        TestTicker ticker = new TestTicker();
        String name = uniqueName();
        LockClient client = client(b -> b.ticker(ticker));
        Lease holder = client.lock(name).tryAcquire().orElseThrow();
        List<CompletableFuture<Lease>> queued = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            queued.add(client.lock(name).acquireAsync(Duration.ofSeconds(60)));
            awaitQueuedInOneClient(name, i + 1);
        }
        String key = "test:{" + name + "}";
        List<Object> values = new ArrayList<>();
        values.add(server.call("GET", key));
        // A stopped ticker: the run of handovers takes no time, so only their number bounds it.
        ticker.freeze();
        Lease current = holder;
        for (CompletableFuture<Lease> waiter : queued) {
            assertThat(current.release()).isTrue();
            current = waiter.get(10, TimeUnit.SECONDS);
            values.add(server.call("GET", key));
        }
        assertThat(current.release()).isTrue();
        // The holder and the eight that took over from it in turn share its token; the ninth got its own.
        assertThat(values.subList(0, 9)).containsOnly(values.get(0));
        assertThat(values.get(9)).isNotEqualTo(values.get(0));
    }

    @Test
    void localHandoversStopOnceTheirRunHasLastedLongerThanItsBound() throws Exception {
        TestTicker ticker = new TestTicker();
        String name = uniqueName();
        LockClient client = client(b -> b.ticker(ticker));
        Lease holder = client.lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Lease> second = client.lock(name).acquireAsync(Duration.ofSeconds(60));
        awaitQueuedInOneClient(name, 1);
        CompletableFuture<Lease> third = client.lock(name).acquireAsync(Duration.ofSeconds(60));
        awaitQueuedInOneClient(name, 2);
        String key = "test:{" + name + "}";
        Object value = server.call("GET", key);
        assertThat(holder.release()).isTrue();
        Lease took = second.get(10, TimeUnit.SECONDS);
        assertThat(server.call("GET", key)).isEqualTo(value);
        ticker.advance(Duration.ofMillis(150));
        assertThat(took.release()).isTrue();
        Lease last = third.get(10, TimeUnit.SECONDS);
        assertThat(server.call("GET", key)).isNotEqualTo(value);
        assertThat(last.release()).isTrue();
    }

    @Test
    void threadsPassingALockAroundLeaveNoRegistrationAndNoHolderBehind() throws Exception {
        String name = uniqueName();
        LockClient client = client();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        // Bursts: waiters that join, subscribe and leave again are where a wake-up meets a grant.
        for (int burst = 0; burst < 15; burst++) {
            List<Thread> threads = new ArrayList<>();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(150);
            for (int t = 0; t < 8; t++) {
                Thread thread = new Thread(() -> {
                    try {
                        while (System.nanoTime() - end < 0) {
                            client.lock(name).acquire().release();
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, "passer-" + t);
                threads.add(thread);
                thread.start();
            }
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(20));
                assertThat(thread.isAlive()).as("%s still waits: a wake-up was lost", thread.getName()).isFalse();
            }
        }
        assertThat(failures).isEmpty();
        // A waiter that took a lock over must not try again with its own token: that try would register it anew,
        // or take the lock for nobody.
        assertThat(eventually(Duration.ofSeconds(5), () -> queueGone(name))).isTrue();
        assertThat(client.lock(name).isLocked()).isFalse();
    }

}
