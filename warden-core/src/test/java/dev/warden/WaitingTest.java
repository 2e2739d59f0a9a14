package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.redisserver.RedisProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WaitingTest extends RedisTestSupport {

    @Test
    void waiterIsWokenByTheReleaseLongBeforeTheHoldersTtl() throws Exception {
        String name = uniqueName();
        Lease holder = client().lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
        CompletableFuture<Optional<Lease>> waiter = client().lock(name).tryAcquireAsync(Duration.ofSeconds(20));
        awaitWaiting(name, 1);
        assertThat(waiter).isNotDone();
        long t0 = System.nanoTime();
        holder.release();
        Optional<Lease> lease = waiter.get(10, TimeUnit.SECONDS);
        assertThat(lease).isPresent();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        lease.get().release();
    }

    @Test
    void waitingDoesNotPollWhileTheHolderKeepsTheLock() throws Exception {
        String name = uniqueName();
        Lease holder = client().lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        LockClient waiting = recorded(client());
        long before = scriptCalls();
        Optional<Lease> lease = waiting.lock(name).tryAcquire(Duration.ofMillis(1500));
        assertThat(lease).isEmpty();
        // A first try, one more once subscribed, one that renews the waiter's place in the queue after a second,
        // one at the deadline, and one that takes it out of the queue as it gives up: no retry loop in between.
        assertThat(scriptCalls() - before).isBetween(1L, 5L);
        holder.release();
    }

    @Test
    void waiterRetriesWhenTheHoldersTtlRunsOutWithoutARelease() throws Exception {
        String name = uniqueName();
        client().lock(name).tryAcquire(Duration.ZERO, Duration.ofMillis(800)).orElseThrow();
        long t0 = System.nanoTime();
        Optional<Lease> lease = client().lock(name).tryAcquire(Duration.ofSeconds(20));
        assertThat(lease).isPresent();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(Duration.ofMillis(500), Duration.ofSeconds(5));
        lease.get().release();
    }

    @Test
    void waitEndsEmptyAtItsDeadline() throws Exception {
        String name = uniqueName();
        Lease holder = client().lock(name).tryAcquire().orElseThrow();
        long t0 = System.nanoTime();
        assertThat(client().lock(name).tryAcquire(Duration.ofMillis(400))).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(Duration.ofMillis(400), Duration.ofSeconds(3));
        holder.release();
    }

    @Test
    void aWaitThatRunsOutWhileItsGrantIsUnheardEndsEmptyOnlyOnceTheGrantIsPassedOn() throws Exception {
        String name = uniqueName();
        RedisProxy proxy = proxy();
        DistributedLock direct = client().lock(name);
        Lease holder = direct.tryAcquire().orElseThrow();
        CompletableFuture<Optional<Lease>> miss = client(b -> b.redisUri(proxy.uri())).lock(name)
                .tryAcquireAsync(Duration.ofMillis(1_500));
        awaitWaiting(name, 1);
        // The waiter's grant message is held back, so its wait runs out with the lock granted to it in Redis; and its
        // request to leave the queue reaches Redis only 300 ms after it is sent.
        assertThat(proxy.blackhole(RedisProxy.Connection::subscriber)).isEqualTo(1);
        holder.release();
        assertThat(direct.isLocked()).as("granted to the waiter").isTrue();
        proxy.latency(Duration.ofMillis(300), Duration.ZERO);
        assertThat(miss.get(10, TimeUnit.SECONDS)).isEmpty();
        // "Not acquired" means that nothing of the acquire holds the lock (a multi-lock's parts rely on it): the
        // result waited for the request that passed the grant on.
        assertThat(direct.isLocked()).as("held after the wait ended empty").isFalse();
        proxy.heal();
    }

    @Test
    void releasePublishesOnlyWhenSomeoneWaits() throws Exception {
        DistributedLock lock = client().lock(uniqueName());
        for (int i = 0; i < 50; i++) {
            lock.tryAcquire().orElseThrow().release();
        }
        assertThat(calls("publish")).isZero();
        Lease holder = lock.tryAcquire().orElseThrow();
        CompletableFuture<Lease> waiter = client().lock(lock.name()).acquireAsync(Duration.ofSeconds(10));
        awaitWaiting(lock.name(), 1);
        holder.release();
        waiter.get(10, TimeUnit.SECONDS).release();
        long published = calls("publish");
        assertThat(published).isPositive();
        // The waiter left the waiters set when it got the lock: later releases publish nothing.
        for (int i = 0; i < 20; i++) {
            lock.tryAcquire().orElseThrow().release();
        }
        assertThat(calls("publish")).isEqualTo(published);
    }

    @Test
    void waiterArrivingBehindLocalWaitersCostsOneTryNotTwo() throws Exception {
        String name = uniqueName();
        Lease holder = client().lock(name).tryAcquire().orElseThrow();
        LockClient waiters = client();
        List<CompletableFuture<Lease>> queued = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            queued.add(waiters.lock(name).acquireAsync(Duration.ofSeconds(20)));
        }
        awaitQueuedInOneClient(name, 3);
        long before = scriptCalls();
        queued.add(waiters.lock(name).acquireAsync(Duration.ofSeconds(20)));
        awaitQueuedInOneClient(name, 4);
        // The test's intent: a window in which a second try, which must not come, would be seen.
        Thread.sleep(200);
        // One try; no second one after joining the subscription that was live all along.
        assertThat(scriptCalls() - before).isEqualTo(1);
        holder.release();
        // Local waiters queue in the order their first tries were answered, which under load need not be the
        // order in which they began.
        releaseEachInTurn(queued);
    }

    /** Releases each waiter's lease as it gets the lock, checking that nobody holds it at the same time. */
    private static void releaseEachInTurn(List<CompletableFuture<Lease>> waiters) throws Exception {
        List<CompletableFuture<Lease>> left = new ArrayList<>(waiters);
        while (!left.isEmpty()) {
            CompletableFuture.anyOf(left.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            List<CompletableFuture<Lease>> done = left.stream().filter(CompletableFuture::isDone).toList();
            assertThat(done).as("waiters holding the lock at once").hasSize(1);
            Lease lease = done.get(0).get();
            assertThat(lease.isHeld()).isTrue();
            assertThat(lease.release()).isTrue();
            left.remove(done.get(0));
        }
    }

    @Test
    void releaseHandsTheLockToTheNextLocalWaiterInOneScript() throws Exception {
        handOverLocally(true);
    }

    @Test
    void aHolderWithoutAFenceHandsOverWithoutOneAndTheNextGetsItsOwnWhenItAsks() throws Exception {
        handOverLocally(false);
    }

    private void handOverLocally(boolean fenced) throws Exception {
        String name = uniqueName();
        LockClient client = client();
        client.lock(uniqueName()).tryAcquire().orElseThrow().release();
        // A fixed lease: a renewed one would pass the lock on without a request (LocalHandoverTest).
        Lease holder = client.lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
        long fence = fenced ? holder.fencingToken() : 0;
        CompletableFuture<Lease> next = client.lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitQueuedInOneClient(name, 1);
        long scripts = scriptCalls();
        long publishes = calls("publish");
        assertThat(holder.release()).isTrue();
        Lease handed = next.get(10, TimeUnit.SECONDS);
        // The release itself granted the lock: no acquire round trip, no wake-up message.
        assertThat(scriptCalls() - scripts).isEqualTo(1);
        assertThat(calls("publish") - publishes).isZero();
        assertThat(handed.isHeld()).isTrue();
        long issued = handed.fencingToken();
        // A fenced holder hands over a fence with the lock; otherwise the new holder's first ask issues one.
        assertThat(scriptCalls() - scripts).isEqualTo(fenced ? 1 : 2);
        assertThat(issued).isGreaterThan(fence);
        assertThat(client.lock(name).inspect().lastFencingToken()).isEqualTo(issued);
        assertThat(queueGone(name)).isTrue();
        assertThat(handed.release()).isTrue();
        assertThat(client.lock(name).isLocked()).isFalse();
    }

    @Test
    void releaseGrantsTheLockToTheOldestWaiterOfAnyClientBeforeALaterOneOfItsOwn() throws Exception {
        String name = uniqueName();
        LockClient local = client();
        // A fixed lease, whose release always goes to Redis (renewed ones: LocalHandoverTest).
        Lease holder = local.lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
        CompletableFuture<Lease> remote = client().lock(name).acquireAsync(Duration.ofSeconds(20));
        String queue = "test:{" + name + "}:q";
        assertThat(eventually(Duration.ofSeconds(5), () -> (Long) server.call("ZCARD", queue) == 1)).isTrue();
        CompletableFuture<Lease> sameClient = local.lock(name).acquireAsync(Duration.ofSeconds(20));
        assertThat(eventually(Duration.ofSeconds(5), () -> (Long) server.call("ZCARD", queue) == 2)).isTrue();
        long publishes = calls("publish");
        holder.release();
        // The other client came first: the release grants it the lock and tells only that client; the waiter of
        // the releasing client, which came later, waits for its turn.
        Lease first = remote.get(10, TimeUnit.SECONDS);
        // Two publications: the grant, and to the next waiter, registered quietly, how long the grant's lease lasts
        // until renewed (release-queued.lua).
        assertThat(calls("publish") - publishes).isEqualTo(2);
        assertThat(first.isHeld()).isTrue();
        assertThat(sameClient).isNotDone();
        assertThat(first.release()).isTrue();
        Lease second = sameClient.get(10, TimeUnit.SECONDS);
        assertThat(second.isHeld()).isTrue();
        assertThat(second.release()).isTrue();
    }

    @Test
    void waitersOfSeveralClientsGetTheLockInTheOrderTheyQueuedAndTheReleasingClientQueuesBehindThem()
            throws Exception {
        String name = uniqueName();
        LockClient holding = client();
        DistributedLock observer = client().lock(name);
        Lease holder = holding.lock(name).tryAcquire().orElseThrow();
        List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> waiters = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            int id = c;
            DistributedLock lock = client().lock(name);
            Thread waiter = new Thread(() -> {
                try (Lease lease = lock.tryAcquire(Duration.ofSeconds(20)).orElseThrow()) {
                    order.add(id);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "waiter-" + c);
            waiters.add(waiter);
            waiter.start();
            // Each waiter is queued before the next one starts.
            int queued = c + 1;
            assertThat(eventually(Duration.ofSeconds(5), () -> observer.inspect().waiters() == queued)).isTrue();
        }
        assertThat(holder.release()).isTrue();
        // The releasing client asks again at once, with no wake-up to wait for, and still comes after them.
        try (Lease again = holding.lock(name).tryAcquire(Duration.ofSeconds(20)).orElseThrow()) {
            order.add(4);
        }
        for (Thread waiter : waiters) {
            waiter.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4);
    }

    @Test
    void waiterCancelledAtTheMomentOfAHandoffNeverLeaksTheLock() throws Exception {
        String name = uniqueName();
        LockClient client = client();
        DistributedLock lock = client.lock(name);
        for (int i = 0; i < 30; i++) {
            Lease holder = lock.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            CompletableFuture<Lease> waiter = client.lock(name).acquireAsync(Duration.ofSeconds(20));
            // The test's intent: the cancel races the handoff, with the waiter somewhere on its way to waiting.
            Thread.sleep(15);
            Thread canceller = new Thread(() -> waiter.cancel(true));
            canceller.start();
            holder.release();
            canceller.join();
            if (!waiter.isCancelled()) {
                waiter.get(5, TimeUnit.SECONDS).release();
            }
            assertThat(eventually(Duration.ofSeconds(3), () -> !lock.isLocked()))
                    .as("round %d: the lock must be free once nobody holds a lease", i).isTrue();
        }
    }

    @Test
    void inspectCountsWaitersAndTheWaitersSetGoesWithTheLastOne() throws Exception {
        String name = uniqueName();
        DistributedLock lock = client().lock(name);
        Lease holder = lock.tryAcquire().orElseThrow();
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiters.add(client().lock(name).acquireAsync(Duration.ofSeconds(20)));
        }
        assertThat(eventually(Duration.ofSeconds(5), () -> lock.inspect().waiters() == 3)).isTrue();
        holder.release();
        releaseEachInTurn(waiters);
        assertThat(lock.inspect().waiters()).isZero();
        // Nobody asked for a fence, so nothing is left at all but the clients' own records.
        assertThat(keysButClientRecords()).isEqualTo(List.of());
    }

    @Test
    void oneClientUsesOnePubSubConnectionForAllItsWaiters() throws Exception {
        LockClient holders = client(b -> b.clientName("holders"));
        LockClient waiters = client(b -> b.clientName("waiters"));
        List<Lease> held = new ArrayList<>();
        List<CompletableFuture<Optional<Lease>>> waits = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String name = uniqueName();
            held.add(holders.lock(name).tryAcquire().orElseThrow());
            for (int j = 0; j < 4; j++) {
                waits.add(waiters.lock(name).tryAcquireAsync(Duration.ofSeconds(20)));
            }
        }
        for (Lease lease : held) {
            awaitWaiting(lease.lockName(), 4);
        }
        String clientList = (String) server.call("CLIENT", "LIST");
        long connections = clientList.lines().filter(line -> line.contains("name=waiters ")).count();
        assertThat(connections).isEqualTo(2);
        for (Lease lease : held) {
            lease.release();
        }
        // Each waiter gets its lock in turn, as the one before it releases.
        List<CompletableFuture<Optional<Lease>>> left = new ArrayList<>(waits);
        while (!left.isEmpty()) {
            CompletableFuture.anyOf(left.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            for (CompletableFuture<Optional<Lease>> wait : List.copyOf(left)) {
                if (wait.isDone()) {
                    assertThat(wait.get()).isPresent();
                    assertThat(wait.get().get().release()).isTrue();
                    left.remove(wait);
                }
            }
        }
    }

    @Test
    void aLockWaitedForAgainSoonNeedsNoNewSubscriptionNorASecondTry() throws Exception {
        String name = uniqueName();
        LockClient holders = client();
        DistributedLock waiting = client().lock(name);
        Lease holder = holders.lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Lease> first = waiting.acquireAsync(Duration.ofSeconds(10));
        awaitWaiting(name, 1);
        holder.release();
        first.get(10, TimeUnit.SECONDS).release();
        // The channel is still subscribed: a new wait just tries once and waits for the release.
        holder = holders.lock(name).tryAcquire().orElseThrow();
        server.call("CONFIG", "RESETSTAT");
        CompletableFuture<Lease> second = waiting.acquireAsync(Duration.ofSeconds(10));
        awaitWaiting(name, 1);
        // The test's intent: a window in which a second try or a subscription, which must not come, would be seen.
        Thread.sleep(200);
        assertThat(second).isNotDone();
        assertThat(calls("subscribe")).isZero();
        assertThat(scriptCalls()).isEqualTo(1);
        holder.release();
        second.get(10, TimeUnit.SECONDS).release();
        // Once nobody has waited for a while, the subscription goes.
        String channel = "test:{" + name + "}:c";
        assertThat(eventually(Duration.ofSeconds(6), () -> ((List<?>) server.call("PUBSUB", "NUMSUB", channel))
                .get(1).equals(0L))).isTrue();
    }

    @Test
    void interruptedAcquireThrowsAndLeavesTheLockFree() throws Exception {
        String name = uniqueName();
        Lease holder = client().lock(name).tryAcquire().orElseThrow();
        DistributedLock lock = client().lock(name);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                lock.acquire();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        waiter.start();
        awaitWaiting(name, 1);
        waiter.interrupt();
        waiter.join(5_000);
        assertThat(waiter.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        holder.release();
        // The test's intent: a window in which the interrupted waiter, were it still about, would take the lock.
        Thread.sleep(300);
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void lockGrantedAtTheMomentOfAnInterruptIsReleasedNeverLeaked() throws Exception {
        String name = uniqueName();
        DistributedLock holderLock = client().lock(name);
        DistributedLock waiterLock = client().lock(name);
        for (int i = 0; i < 30; i++) {
            Lease holder = holderLock.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            AtomicReference<Lease> got = new AtomicReference<>();
            Thread waiter = new Thread(() -> {
                try {
                    got.set(waiterLock.acquire());
                } catch (InterruptedException e) {
                    // expected in most rounds
                }
            });
            waiter.start();
            // The test's intent: the interrupt races the grant, 0-2 ms after a release 20 ms into the wait.
            Thread.sleep(20);
            holder.release();
            Thread.sleep(i % 3);
            waiter.interrupt();
            waiter.join(5_000);
            if (got.get() != null) {
                got.get().release();
            }
            assertThat(eventually(Duration.ofSeconds(3), () -> !holderLock.isLocked()))
                    .as("round %d: the lock must be free once nobody holds a lease", i).isTrue();
        }
    }

    @Test
    void acquireAsyncWaitsWithoutBlockingAThreadPerWaiter() throws Exception {
        LockClient holders = client();
        LockClient waiters = client();
        List<Lease> held = new ArrayList<>();
        List<CompletableFuture<Lease>> futures = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            String name = uniqueName();
            held.add(holders.lock(name).tryAcquire().orElseThrow());
        }
        int threadsBefore = Thread.activeCount();
        for (Lease lease : held) {
            futures.add(waiters.lock(lease.lockName()).acquireAsync(Duration.ofSeconds(30)));
        }
        await(() -> held.stream().allMatch(lease -> queued(lease.lockName()) == 1), Duration.ofSeconds(10),
                "200 waiters queued");
        assertThat(Thread.activeCount() - threadsBefore).isLessThan(10);
        assertThat(futures).allMatch(f -> !f.isDone());
        for (Lease lease : held) {
            lease.release();
        }
        for (CompletableFuture<Lease> future : futures) {
            Lease lease = future.get(10, TimeUnit.SECONDS);
            assertThat(lease.isHeld()).isTrue();
            lease.release();
        }
    }

    @Test
    void acquireAsyncCompletesWithTimeoutExceptionWhenTheWaitRunsOut() throws Exception {
        String name = uniqueName();
        Lease holder = client().lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Lease> future = client().lock(name).acquireAsync(Duration.ofMillis(300));
        assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TimeoutException.class);
        holder.release();
    }

    @Test
    void cancelledAsyncAcquireStopsWaitingAndNeverTakesTheLock() throws Exception {
        String name = uniqueName();
        Lease holder = client().lock(name).tryAcquire().orElseThrow();
        DistributedLock lock = client().lock(name);
        CompletableFuture<Lease> future = lock.acquireAsync(Duration.ofSeconds(30));
        awaitWaiting(name, 1);
        assertThat(future.cancel(true)).isTrue();
        holder.release();
        // The test's intent: a window in which the cancelled waiter, were it still about, would take the lock.
        Thread.sleep(500);
        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.inspect().held()).isFalse();
    }

    @Test
    void eightWaitersInOneClientAllGetTheLockInTurn() throws Exception {
        String name = uniqueName();
        LockClient client = client();
        Lease first = client.lock(name).tryAcquire().orElseThrow();
        List<CompletableFuture<Lease>> futures = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            futures.add(client.lock(name).acquireAsync(Duration.ofSeconds(20)));
        }
        awaitQueuedInOneClient(name, 8);
        long before = scriptCalls();
        first.release();
        List<CompletableFuture<Lease>> remaining = new ArrayList<>(futures);
        int handoffs = 0;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!remaining.isEmpty() && System.nanoTime() - end < 0) {
            CompletableFuture<Object> any = CompletableFuture.anyOf(remaining.toArray(CompletableFuture[]::new));
            Lease lease = (Lease) any.get(10, TimeUnit.SECONDS);
            remaining.removeIf(f -> f.isDone() && f.join() == lease);
            assertThat(lease.release()).isTrue();
            handoffs++;
        }
        assertThat(handoffs).isEqualTo(8);
        // Waiters of one client queue locally: a release and an acquire per handoff, not a retry per waiter.
        assertThat(scriptCalls() - before).isLessThanOrEqualTo(8L * 2 + 2);
    }
}
