package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A semaphore's permits are leases: limited, queued in order, renewed, lost loudly, fenced. */
class SemaphoreTest extends RedisTestSupport {
    private static final long BOUND_SECONDS = 10;

    static String queueKey(String name) {
        return "test:{" + name + "}:s:q";
    }

    @Test
    void neverLendsMoreThanItsPermits() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = client().semaphore(name, 3);
        DistributedSemaphore other = client().semaphore(name, 3);
        Lease one = semaphore.tryAcquire(1).orElseThrow();
        Lease two = other.tryAcquire(2).orElseThrow();
        assertThat(semaphore.available()).isZero();
        assertThat(other.tryAcquire(1)).isEmpty();
        assertThat(semaphore.tryAcquire(1, Duration.ofMillis(100))).isEmpty();
        assertThat(one.release()).isTrue();
        assertThat(semaphore.available()).isEqualTo(1);
        assertThat(other.tryAcquire(2)).isEmpty();
        Lease three = other.tryAcquire(1).orElseThrow();
        assertThat(two.release()).isTrue();
        assertThat(three.release()).isTrue();
        assertThat(semaphore.available()).isEqualTo(3);
    }

    @Test
    void manyThreadsNeverHoldMoreThanThePermitsAtOnce() throws Exception {
        String name = uniqueName();
        int permits = 3;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                DistributedSemaphore semaphore = client().semaphore(name, permits);
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        try (Lease lease = semaphore.tryAcquire(1, Duration.ofSeconds(BOUND_SECONDS)).orElseThrow()) {
                            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            // The test's intent: work done while holding a permit.
                            Thread.sleep(1);
                            inside.decrementAndGet();
                        }
                        done.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(done.get()).isEqualTo(200);
        assertThat(most.get()).isLessThanOrEqualTo(permits).isGreaterThan(1);
        assertThat(client().semaphore(name, permits).available()).isEqualTo(permits);
    }

    @Test
    void aClientThatNamesAnotherNumberOfPermitsFailsClearly() {
        String name = uniqueName();
        client().semaphore(name, 3).tryAcquire(1).orElseThrow();
        assertThatThrownBy(() -> client().semaphore(name, 5).tryAcquire(1))
                .isInstanceOf(LockException.class).hasMessageContaining("has 3 permits, not 5");
    }

    @Test
    void rejectsRequestsItCouldNeverGrant() {
        DistributedSemaphore semaphore = client().semaphore(uniqueName(), 2);
        assertThatThrownBy(() -> semaphore.tryAcquire(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("permits must be between 1 and 2: 3");
        assertThatThrownBy(() -> semaphore.tryAcquire(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client().semaphore(uniqueName(), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(": 0");
    }

    @Test
    void fencingTokensRiseWithEveryLeaseAlsoAfterRedisLostItsData() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = client().semaphore(name, 2);
        Lease a = semaphore.tryAcquire(1).orElseThrow();
        Lease b = semaphore.tryAcquire(1).orElseThrow();
        assertThat(b.fencingToken()).isGreaterThan(a.fencingToken());
        b.release();
        Lease c = semaphore.tryAcquire(1).orElseThrow();
        assertThat(c.fencingToken()).isGreaterThan(b.fencingToken());
        assertThat(semaphore.inspect().lastFencingToken()).isEqualTo(c.fencingToken());
        server.call("FLUSHALL");
        Lease d = semaphore.tryAcquire(2).orElseThrow();
        assertThat(d.fencingToken()).isGreaterThan(c.fencingToken());
        assertThat(a.release()).isFalse();
    }

    @Test
    void aReleaseLendsThePermitsToAWaiterOfAnotherClientAtOnce() throws Exception {
        String name = uniqueName();
        Lease held = client().semaphore(name, 1).tryAcquire(1).orElseThrow();
        CompletableFuture<Optional<Lease>> waiter = client().semaphore(name, 1)
                .tryAcquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
        assertThat(eventually(Duration.ofSeconds(5), () -> (Long) server.call("ZCARD", queueKey(name)) == 1))
                .isTrue();
        long released = System.nanoTime();
        held.release();
        Lease granted = waiter.get(BOUND_SECONDS, TimeUnit.SECONDS).orElseThrow();
        // A grant, not the once-a-second retry of a waiter.
        assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofMillis(500));
        assertThat(granted.isHeld()).isTrue();
        assertThat(granted.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(granted.release()).isTrue();
        assertThat(server.call("EXISTS", queueKey(name))).isEqualTo(0L);
    }

    @Test
    void aLargeRequestIsNotPassedByLaterSmallOnes() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = client().semaphore(name, 3);
        Lease one = semaphore.tryAcquire(1).orElseThrow();
        CompletableFuture<Optional<Lease>> large = client().semaphore(name, 3)
                .tryAcquireAsync(3, Duration.ofSeconds(BOUND_SECONDS));
        assertThat(eventually(Duration.ofSeconds(5), () -> (Long) server.call("ZCARD", queueKey(name)) == 1))
                .isTrue();
        // Two permits are free, but the large request came first.
        assertThat(client().semaphore(name, 3).tryAcquire(1)).isEmpty();
        CompletableFuture<Optional<Lease>> small = client().semaphore(name, 3)
                .tryAcquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
        assertThat(eventually(Duration.ofSeconds(5), () -> (Long) server.call("ZCARD", queueKey(name)) == 2))
                .isTrue();
        // The test's intent, here and below: a window in which a waiter served out of turn would be seen.
        Thread.sleep(200);
        assertThat(large).isNotDone();
        assertThat(small).isNotDone();
        one.release();
        Lease all = large.get(BOUND_SECONDS, TimeUnit.SECONDS).orElseThrow();
        Thread.sleep(200);
        assertThat(small).isNotDone();
        all.release();
        assertThat(small.get(BOUND_SECONDS, TimeUnit.SECONDS)).isPresent();
    }

    @Test
    void aDeadHoldersPermitsComeBackWhenItsLeaseEndsAndNotBefore() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = client().semaphore(name, 1);
        // A holder that never releases: its fixed lease is all that ends it.
        semaphore.tryAcquire(1, Duration.ZERO, Duration.ofMillis(600)).orElseThrow();
        long start = System.nanoTime();
        Lease next = client().semaphore(name, 1).tryAcquire(1, Duration.ofSeconds(BOUND_SECONDS)).orElseThrow();
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(waited).isGreaterThan(Duration.ofMillis(450)).isLessThan(Duration.ofMillis(2_000));
        assertThat(next.isHeld()).isTrue();
    }

    @Test
    void theWatchdogRenewsPermitsAndAForcedOutHolderIsToldItLostThem() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = client(b -> b.defaultLease(Duration.ofMillis(300))).semaphore(name, 1);
        Lease lease = semaphore.acquire(1);
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost(lost::countDown);
        // The test's intent: held through three periods of its 300 ms lease, renewed by the watchdog.
        Thread.sleep(900);
        assertThat(lease.isHeld()).isTrue();
        assertThat(client().semaphore(name, 1).tryAcquire(1)).isEmpty();
        assertThat(semaphore.forceRelease()).hasValue(lease.fencingToken());
        assertThat(lost.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.release()).isFalse();
        assertThat(semaphore.forceRelease()).isEmpty();
    }

    @Test
    void aWaiterThatGivesUpLeavesTheQueue() throws Exception {
        String name = uniqueName();
        Lease held = client().semaphore(name, 1).tryAcquire(1).orElseThrow();
        assertThat(client().semaphore(name, 1).tryAcquire(1, Duration.ofMillis(300))).isEmpty();
        assertThat(eventually(Duration.ofSeconds(5), () -> (Long) server.call("ZCARD", queueKey(name)) == 0))
                .isTrue();
        assertThat(held.release()).isTrue();
        assertThat(client().semaphore(name, 1).available()).isEqualTo(1);
    }

    @Test
    void inspectAndTheAsyncFormsReportTheState() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = client().semaphore(name, 4);
        Lease lease = semaphore.acquireAsync(3, Duration.ofSeconds(1)).get(BOUND_SECONDS, TimeUnit.SECONDS);
        SemaphoreInfo info = semaphore.inspectAsync().get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertThat(info.permits()).isEqualTo(4);
        assertThat(info.available()).isEqualTo(1);
        assertThat(info.holders()).isEqualTo(1);
        assertThat(info.longestLease()).isPositive();
        assertThat(info.lastFencingToken()).isEqualTo(lease.fencingToken());
        assertThat(semaphore.availableAsync().get(BOUND_SECONDS, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(lease.releaseAsync().get(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(semaphore.available()).isEqualTo(4);
        Lease forced = semaphore.tryAcquire(2).orElseThrow();
        assertThat(semaphore.forceReleaseAsync().get(BOUND_SECONDS, TimeUnit.SECONDS))
                .hasValue(forced.fencingToken());
        assertThat(semaphore.available()).isEqualTo(4);
    }

    @Test
    void closingTheClientReleasesItsPermits() {
        String name = uniqueName();
        LockClient holder = client();
        holder.semaphore(name, 2).tryAcquire(2).orElseThrow();
        holder.close();
        assertThat(client().semaphore(name, 2).available()).isEqualTo(2);
    }

    /**
     * Waits until {@code count} waiters are queued and subscribed, and the try each sent once subscribed has been
     * answered. Each waiter here is the first of its client to wait for the semaphore: its first try (arm 0) queues
     * it, then it subscribes to its client's grant channel and, once subscribed, tries again (arm 1); then it waits
     * for a grant, or for its next try a second later (ShareAcquisition.onHeld). A try writes its arm into the
     * waiter's registration, so once every registration names arm 1 or later, each waiter is subscribed and Redis
     * has run its try. A refused try of {@code waitersClient}, answered on the same connection after the last
     * waiter's try, then shows that the client has handled that try's answer as well.
     *
     * @param waitersClient a semaphore of the client of the waiter that came last
     */
    static void awaitQueuedAndListening(String name, long count, DistributedSemaphore waitersClient)
            throws InterruptedException {
        await(() -> {
            List<Long> arms = registrationArms(name);
            return (Long) server.call("ZCARD", queueKey(name)) == count && arms.size() == count
                    && arms.stream().allMatch(arm -> arm >= 1);
        }, Duration.ofSeconds(5), count + " waiters of " + name + " queued, each having tried once subscribed");
        assertThat(waitersClient.tryAcquire(1)).isEmpty();
    }

    /** Waits until the JVM's clock reaches {@code nanoTime}: a time the watchdog or a waiter is scheduled for. */
    private static void awaitClock(long nanoTime) throws InterruptedException {
        await(() -> System.nanoTime() - nanoTime >= 0, Duration.ofSeconds(5), "the scheduled time");
    }

    /** The arm (the try that wrote it) of each waiter's registration: "until:grant:arm:permits:client" (queue.lua). */
    @SuppressWarnings("unchecked")
    static List<Long> registrationArms(String name) {
        // Besides the registrations, the hash counts each client's waiters: "#<client id>" -> a plain number.
        return ((List<String>) server.call("HVALS", "test:{" + name + "}:s:r")).stream()
                .filter(entry -> entry.contains(":")).map(entry -> Long.parseLong(entry.split(":")[2])).toList();
    }

    @Test
    void aReleaseHandsThePermitToTheNextWaiterOfItsClientWithoutWaitingForRedis() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = recorded(client()).semaphore(name, 1);
        Lease held = semaphore.acquire(1);
        CompletableFuture<Lease> waiter = semaphore.acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
        awaitQueuedAndListening(name, 1, semaphore);
        server.call("CONFIG", "RESETSTAT");
        assertThat(held.release()).isTrue();
        Lease next = waiter.get(BOUND_SECONDS, TimeUnit.SECONDS);
        // One script moved the permit to the waiter's token (EVAL, so that it comes before the new holder's
        // requests); no release script granted it, and nothing was published.
        assertThat(commandCounts("evalsha", "eval", "publish"))
                .containsEntry("evalsha", 0L).containsEntry("eval", 1L).containsEntry("publish", 0L);
        assertThat(next.isHeld()).isTrue();
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(semaphore.inspect().holders()).isEqualTo(1);
        assertThat(server.call("EXISTS", queueKey(name))).isEqualTo(0L);
        assertThat(semaphore.tryAcquire(1)).isEmpty();
        assertThat(next.release()).isTrue();
        assertThat(semaphore.available()).isEqualTo(1);
    }

    @Test
    void aHandoverWhileTheHoldersRenewalIsOnItsWayLosesNoneOfTheLeasesItMade() throws Exception {
        String name = uniqueName();
        int takers = 32;
        Duration lease = Duration.ofSeconds(6);
        // When each renewal of the watchdog was sent (the client's clock), from its answer.
        LinkedBlockingQueue<Long> renewalsSent = new LinkedBlockingQueue<>();
        LockListener listener = new LockListener() {
            @Override
            public void onRenewal(Renewal event) {
                if (event.error() == null) {
                    renewalsSent.add(System.nanoTime() - event.roundTrip().toNanos());
                }
            }
        };
        DistributedSemaphore semaphore = recorded(client(b -> b.defaultLease(lease).listener(listener)))
                .semaphore(name, takers);
        Lease held = semaphore.acquire(takers);
        // The times below follow the watchdog's schedule (a renewal a third of the lease after the last was sent)
        // and the waiters' (a try a second after the last was answered), not a race. The waiters come 1.7 s before
        // the holder's next renewal and try again about a second later; then Redis pauses, the renewal goes out and
        // stays on its way, and the holder releases while no waiter has a try on its way (one with a try on its way
        // may not take a permit over).
        Long sent = renewalsSent.poll(BOUND_SECONDS, TimeUnit.SECONDS);
        assertThat(sent).as("a renewal of the holder").isNotNull();
        long nextRenewal = sent + lease.toNanos() / 3;
        awaitClock(nextRenewal - TimeUnit.MILLISECONDS.toNanos(1700));
        // The client's first waiter subscribes to its grant channel and tries again before the others come, so
        // that the others wait with no try on their way.
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        waiters.add(semaphore.acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS)));
        await(() -> registrationArms(name).size() == 1 && registrationArms(name).get(0) >= 1, Duration.ofSeconds(5),
                "the first waiter listens");
        for (int i = 1; i < takers; i++) {
            waiters.add(semaphore.acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS)));
        }
        await(() -> (Long) server.call("ZCARD", queueKey(name)) == takers, Duration.ofSeconds(5), "all queued");
        assertThat(semaphore.tryAcquire(1)).isEmpty();
        // Every waiter tried again (the first, which tried twice before, a third time): the next tries are a second
        // away.
        await(() -> {
            List<Long> arms = registrationArms(name);
            return arms.size() == takers && arms.stream().allMatch(arm -> arm >= 1)
                    && arms.stream().mapToLong(Long::longValue).sum() > takers;
        }, Duration.ofSeconds(5), "every waiter tried again");
        awaitClock(nextRenewal - TimeUnit.MILLISECONDS.toNanos(100));
        server.pause();
        List<Lease> leases = new ArrayList<>();
        CompletableFuture<Boolean> released;
        try {
            awaitClock(nextRenewal + TimeUnit.MILLISECONDS.toNanos(150));
            // A successor renews at once: the renewal on its way extends only the old token's share
            // (LeaseBase.renewAfter).
            released = held.releaseAsync();
            // Taken over without Redis, so while it is paused (each future completes on the callback thread).
            await(() -> waiters.stream().anyMatch(CompletableFuture::isDone), Duration.ofSeconds(1),
                    "a permit taken over");
            for (CompletableFuture<Lease> waiter : waiters) {
                Lease taken = waiter.getNow(null);
                if (taken != null) {
                    leases.add(taken);
                }
            }
        } finally {
            server.resume();
        }
        assertThat(leases).as("leases taken over while Redis was paused").isNotEmpty();
        for (CompletableFuture<Lease> waiter : waiters) {
            Lease taken = waiter.get(BOUND_SECONDS, TimeUnit.SECONDS);
            if (!leases.contains(taken)) {
                leases.add(taken);
            }
        }
        assertThat(released.get(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        // Each lease taken over is renewed, its deadline a whole lease away again, or is lost: a renewal that
        // reached Redis before the script that moved the share found its token holding nothing.
        long renewed = lease.toNanos() - TimeUnit.SECONDS.toNanos(1);
        await(() -> leases.stream().allMatch(l -> !l.isHeld() || l.remaining().toNanos() > renewed),
                Duration.ofSeconds(BOUND_SECONDS), "every lease renewed or lost");
        assertThat(leases.stream().filter(l -> !l.isHeld()).count()).as("leases lost").isZero();
        assertThat(semaphore.inspect().holders()).isEqualTo(takers);
        for (Lease l : leases) {
            assertThat(l.release()).isTrue();
        }
        assertThat(semaphore.available()).isEqualTo(takers);
    }

    @Test
    void threadsOfOneClientPassPermitsOnLocallyAndNeverHoldMoreThanThePermits() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = recorded(client()).semaphore(name, 2);
        int threads = 6;
        int rounds = 30;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicLong lastFence = new AtomicLong();
        AtomicInteger fencesOutOfOrder = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        server.call("CONFIG", "RESETSTAT");
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        try (Lease lease = semaphore.tryAcquire(1, Duration.ofSeconds(BOUND_SECONDS)).orElseThrow()) {
                            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            long fence = lease.fencingToken();
                            synchronized (lastFence) {
                                // Two holders at once may take their fences in either order; none repeats.
                                if (fence == lastFence.get()) {
                                    fencesOutOfOrder.incrementAndGet();
                                }
                                lastFence.set(Math.max(lastFence.get(), fence));
                            }
                            // The test's intent: work done while holding a permit.
                            Thread.sleep(1);
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        int acquisitions = threads * rounds;
        assertThat(most.get()).isEqualTo(2);
        assertThat(fencesOutOfOrder.get()).isZero();
        // Most permits changed hands in the client: a handover's script instead of a release's grant, published to
        // the waiter. That script went by EVAL until the server answered the one SCRIPT LOAD of it, by SHA after.
        assertThat(calls("publish")).isLessThan(acquisitions / 4);
        assertThat(calls("script|load") + calls("script")).isEqualTo(1);
        assertThat(calls("eval")).isLessThan(acquisitions / 10);
        assertThat(semaphore.available()).isEqualTo(2);
        assertThat(server.call("EXISTS", queueKey(name))).isEqualTo(0L);
    }

    @Test
    void aPermitIsNotHandedToAWaiterOfItsClientWhileAWaiterOfAnotherClientCameFirst() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = recorded(client()).semaphore(name, 1);
        Lease held = semaphore.acquire(1);
        DistributedSemaphore another = recorded(client()).semaphore(name, 1);
        CompletableFuture<Lease> other = another.acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
        awaitQueuedAndListening(name, 1, another);
        CompletableFuture<Lease> mine = semaphore.acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
        awaitQueuedAndListening(name, 2, semaphore);
        server.call("CONFIG", "RESETSTAT");
        assertThat(held.release()).isTrue();
        Lease first = other.get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertThat(calls("eval")).isZero();
        assertThat(calls("publish")).isEqualTo(1);
        // The test's intent: a window in which a permit handed out of turn would be seen.
        Thread.sleep(200);
        assertThat(mine).isNotDone();
        assertThat(first.release()).isTrue();
        assertThat(mine.get(BOUND_SECONDS, TimeUnit.SECONDS).release()).isTrue();
    }

    @Test
    void aPermitWhoseLeaseHasLessThanHalfAGrantLeftIsReleasedThroughRedis() throws Exception {
        String name = uniqueName();
        AtomicLong skew = new AtomicLong();
        DistributedSemaphore semaphore = recorded(client(b -> b.ticker(() -> System.nanoTime() + skew.get())))
                .semaphore(name, 1);
        Lease held = semaphore.acquire(1);
        // 28 s of its 30 s lease gone by the client's clock, before its first renewal: 2 s left, less than half of
        // the 5 s a grant sets.
        skew.set(TimeUnit.SECONDS.toNanos(28));
        assertThat(held.isHeld()).isTrue();
        CompletableFuture<Lease> waiter = semaphore.acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
        awaitQueuedAndListening(name, 1, semaphore);
        server.call("CONFIG", "RESETSTAT");
        assertThat(held.release()).isTrue();
        Lease next = waiter.get(BOUND_SECONDS, TimeUnit.SECONDS);
        // Released through Redis: the release script granted the permit, and named the waiter of its own client in
        // its reply rather than publishing the grant.
        assertThat(commandCounts("evalsha", "eval", "publish"))
                .containsEntry("evalsha", 1L).containsEntry("eval", 0L).containsEntry("publish", 0L);
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(next.release()).isTrue();
    }

    @Test
    void aFixedLeaseIsReleasedThroughRedis() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = recorded(client()).semaphore(name, 1);
        Lease held = semaphore.tryAcquire(1, Duration.ZERO, Duration.ofSeconds(20)).orElseThrow();
        CompletableFuture<Lease> waiter = semaphore.acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
        awaitQueuedAndListening(name, 1, semaphore);
        server.call("CONFIG", "RESETSTAT");
        assertThat(held.release()).isTrue();
        Lease next = waiter.get(BOUND_SECONDS, TimeUnit.SECONDS);
        // Released through Redis: the release script granted the permit, and named the waiter of its own client in
        // its reply rather than publishing the grant.
        assertThat(commandCounts("evalsha", "eval", "publish"))
                .containsEntry("evalsha", 1L).containsEntry("eval", 0L).containsEntry("publish", 0L);
        assertThat(next.release()).isTrue();
    }

    @Test
    void aHandedOverPermitWhoseShareRedisLostIsReportedLostForBothLeases() throws Exception {
        String name = uniqueName();
        DistributedSemaphore semaphore = recorded(client()).semaphore(name, 1);
        Lease held = semaphore.acquire(1);
        CompletableFuture<Lease> waiter = semaphore.acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
        awaitQueuedAndListening(name, 1, semaphore);
        CountDownLatch lost = new CountDownLatch(1);
        // Redis loses the share (as after a restart without its data); the client cannot know before it asks.
        server.call("DEL", "test:{" + name + "}:s", "test:{" + name + "}:s:h");
        assertThat(held.release()).isFalse();
        Lease next = waiter.get(BOUND_SECONDS, TimeUnit.SECONDS);
        next.onLost(lost::countDown);
        assertThat(lost.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(next.isHeld()).isFalse();
        assertThatThrownBy(next::fencingToken).isInstanceOf(LeaseLostException.class);
        assertThat(next.release()).isFalse();
    }

    @Test
    void aWaiterThatNeedsReplicaAcknowledgementsIsNotHandedAPermitLocally() throws Exception {
        String name = uniqueName();
        LockClient one = recorded(client());
        Lease held = one.semaphore(name, 1).acquire(1);
        // This server has no replica: a grant can never be acknowledged, so the waiter must not get a lease.
        CompletableFuture<Lease> waiter = one.semaphore(name, 1).withReplicaAcks(1, Duration.ofMillis(100))
                .acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
        awaitQueuedAndListening(name, 1, one.semaphore(name, 1));
        server.call("CONFIG", "RESETSTAT");
        assertThat(held.release()).isTrue();
        assertThatThrownBy(() -> waiter.get(BOUND_SECONDS, TimeUnit.SECONDS))
                .hasCauseInstanceOf(LockReplicationException.class);
        assertThat(calls("eval")).isZero();
    }
}
