package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.redisserver.RedisProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/** Readers share, a writer excludes everyone, waiting is one queue in order, and every promise of a lock holds. */
class ReadWriteLockTest extends RedisTestSupport {
    private static final long BOUND_SECONDS = 10;

    private String queueKey(String name) {
        return "test:{" + name + "}:rw:q";
    }

    private void awaitQueued(String name, long count) throws InterruptedException {
        assertThat(eventually(Duration.ofSeconds(5), () -> (Long) server.call("ZCARD", queueKey(name)) == count))
                .as("%d queued", count).isTrue();
    }

    @Test
    void readersShareAndAWriterExcludesEveryone() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock lock = client().readWriteLock(name);
        DistributedReadWriteLock other = client().readWriteLock(name);
        Lease r1 = lock.readLock().tryAcquire().orElseThrow();
        Lease r2 = client().readWriteLock(name).readLock().tryAcquire().orElseThrow();
        assertThat(other.writeLock().tryAcquire()).isEmpty();
        assertThat(lock.readLock().inspect().held()).isTrue();
        assertThat(lock.writeLock().inspect().held()).isFalse();
        r1.release();
        assertThat(other.writeLock().tryAcquire()).isEmpty();
        r2.release();
        Lease w = other.writeLock().tryAcquire().orElseThrow();
        assertThat(lock.readLock().tryAcquire()).isEmpty();
        assertThat(lock.writeLock().tryAcquire()).isEmpty();
        assertThat(lock.writeLock().inspect().held()).isTrue();
        assertThat(lock.readLock().inspect().held()).isFalse();
        assertThat(w.release()).isTrue();
        assertThat(lock.writeLock().tryAcquire()).isPresent();
    }

    @Test
    void noWriterOverlapsAnyHolderUnderContention() throws Exception {
        String name = uniqueName();
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger sharedReads = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                boolean writer = t < 2;
                DistributedReadWriteLock lock = client().readWriteLock(name);
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < 20; i++) {
                        DistributedLock half = writer ? lock.writeLock() : lock.readLock();
                        try (Lease lease = half.tryAcquire(Duration.ofSeconds(BOUND_SECONDS)).orElseThrow()) {
                            if (writer) {
                                if (writers.incrementAndGet() != 1 || readers.get() != 0) {
                                    violations.incrementAndGet();
                                }
                                // The test's intent: work done while holding the write lock.
                                Thread.sleep(1);
                                writers.decrementAndGet();
                            } else {
                                if (readers.incrementAndGet() > 1) {
                                    sharedReads.incrementAndGet();
                                }
                                if (writers.get() != 0) {
                                    violations.incrementAndGet();
                                }
                                // The test's intent: work done while holding the read lock.
                                Thread.sleep(2);
                                readers.decrementAndGet();
                            }
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
        assertThat(violations.get()).isZero();
        assertThat(sharedReads.get()).isPositive();
    }

    @Test
    void aReaderThatComesWhileAWriterWaitsQueuesBehindIt() throws Exception {
        String name = uniqueName();
        Lease reader = client().readWriteLock(name).readLock().tryAcquire().orElseThrow();
        CompletableFuture<Optional<Lease>> writer = client().readWriteLock(name).writeLock()
                .tryAcquireAsync(Duration.ofSeconds(BOUND_SECONDS));
        awaitQueued(name, 1);
        // The lock is held by a reader only, yet a new reader waits for the writer queued first.
        assertThat(client().readWriteLock(name).readLock().tryAcquire()).isEmpty();
        CompletableFuture<Optional<Lease>> late = client().readWriteLock(name).readLock()
                .tryAcquireAsync(Duration.ofSeconds(BOUND_SECONDS));
        awaitQueued(name, 2);
        reader.release();
        Lease written = writer.get(BOUND_SECONDS, TimeUnit.SECONDS).orElseThrow();
        // The test's intent: a window in which a reader let in beside the writer would be seen.
        Thread.sleep(200);
        assertThat(late).isNotDone();
        written.release();
        assertThat(late.get(BOUND_SECONDS, TimeUnit.SECONDS)).isPresent();
    }

    @Test
    void aReaderWhoseWaitRunsOutEndsEmptyOnlyOnceItHasLeftTheQueue() throws Exception {
        String name = uniqueName();
        RedisProxy proxy = proxy();
        DistributedReadWriteLock direct = client().readWriteLock(name);
        Lease writer = direct.writeLock().tryAcquire().orElseThrow();
        CompletableFuture<Optional<Lease>> miss = client(b -> b.redisUri(proxy.uri())).readWriteLock(name).readLock()
                .tryAcquireAsync(Duration.ofMillis(800));
        awaitQueued(name, 1);
        // The reader's last try, at the end of its wait, and its request to leave the queue each reach Redis 300 ms
        // after they are sent; the writer releases as soon as the reader's result is empty, which grants the reader a
        // share if it is still queued.
        proxy.latency(Duration.ofMillis(300), Duration.ZERO);
        assertThat(miss.get(10, TimeUnit.SECONDS)).isEmpty();
        writer.release();
        assertThat(direct.inspect().readers()).as("readers after the reader's wait ended empty").isZero();
        assertThat(direct.inspect().waiters()).isZero();
    }

    @Test
    void aWritersReleaseGrantsEveryReaderQueuedBeforeTheNextWriter() throws Exception {
        String name = uniqueName();
        Lease writer = client().readWriteLock(name).writeLock().tryAcquire().orElseThrow();
        CompletableFuture<Optional<Lease>> r1 = client().readWriteLock(name).readLock()
                .tryAcquireAsync(Duration.ofSeconds(BOUND_SECONDS));
        awaitQueued(name, 1);
        CompletableFuture<Optional<Lease>> r2 = client().readWriteLock(name).readLock()
                .tryAcquireAsync(Duration.ofSeconds(BOUND_SECONDS));
        awaitQueued(name, 2);
        CompletableFuture<Optional<Lease>> w2 = client().readWriteLock(name).writeLock()
                .tryAcquireAsync(Duration.ofSeconds(BOUND_SECONDS));
        awaitQueued(name, 3);
        CompletableFuture<Optional<Lease>> r3 = client().readWriteLock(name).readLock()
                .tryAcquireAsync(Duration.ofSeconds(BOUND_SECONDS));
        awaitQueued(name, 4);
        long released = System.nanoTime();
        writer.release();
        Lease first = r1.get(BOUND_SECONDS, TimeUnit.SECONDS).orElseThrow();
        Lease second = r2.get(BOUND_SECONDS, TimeUnit.SECONDS).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofMillis(500));
        // The test's intent: a window in which a waiter served out of turn would be seen.
        Thread.sleep(200);
        assertThat(w2).isNotDone();
        assertThat(r3).isNotDone();
        first.release();
        second.release();
        Lease next = w2.get(BOUND_SECONDS, TimeUnit.SECONDS).orElseThrow();
        assertThat(r3).isNotDone();
        next.release();
        assertThat(r3.get(BOUND_SECONDS, TimeUnit.SECONDS)).isPresent();
    }

    @Test
    void writersTokensRiseAndAReadersIsTheLastWritersAlsoAfterDataLoss() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock lock = client().readWriteLock(name);
        Lease w1 = lock.writeLock().tryAcquire().orElseThrow();
        long first = w1.fencingToken();
        w1.release();
        Lease r1 = lock.readLock().tryAcquire().orElseThrow();
        Lease r2 = lock.readLock().tryAcquire().orElseThrow();
        assertThat(r1.fencingToken()).isEqualTo(first);
        assertThat(r2.fencingToken()).isEqualTo(first);
        r1.release();
        r2.release();
        Lease w2 = lock.writeLock().tryAcquire().orElseThrow();
        assertThat(w2.fencingToken()).isGreaterThan(first);
        w2.release();
        server.call("FLUSHALL");
        Lease r3 = lock.readLock().tryAcquire().orElseThrow();
        assertThat(r3.fencingToken()).isLessThanOrEqualTo(w2.fencingToken());
        r3.release();
        Lease w3 = lock.writeLock().tryAcquire().orElseThrow();
        assertThat(w3.fencingToken()).isGreaterThan(w2.fencingToken()).isGreaterThanOrEqualTo(r3.fencingToken());
    }

    @Test
    void aWriterMayTakeTheReadLockAndThenReleaseTheWriteLock() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock lock = client().readWriteLock(name);
        Lease write = lock.writeLock().tryAcquire().orElseThrow();
        // Another client's writer waits meanwhile: the downgrade does not queue behind it.
        CompletableFuture<Optional<Lease>> waiting = client().readWriteLock(name).writeLock()
                .tryAcquireAsync(Duration.ofSeconds(BOUND_SECONDS));
        awaitQueued(name, 1);
        Lease read = lock.readLock().tryAcquire().orElseThrow();
        assertThat(read.fencingToken()).isEqualTo(write.fencingToken());
        assertThat(write.release()).isTrue();
        assertThat(read.isHeld()).isTrue();
        assertThat(client().readWriteLock(name).writeLock().tryAcquire()).isEmpty();
        // The test's intent: a window in which a writer let in beside the reader would be seen.
        Thread.sleep(200);
        assertThat(waiting).isNotDone();
        read.release();
        assertThat(waiting.get(BOUND_SECONDS, TimeUnit.SECONDS)).isPresent();
    }

    @Test
    void anotherThreadOfTheWritersClientDoesNotGetTheReadLock() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock lock = client().readWriteLock(name);
        Lease write = lock.writeLock().tryAcquire().orElseThrow();
        CompletableFuture<Optional<Lease>> read = CompletableFuture.supplyAsync(() -> lock.readLock().tryAcquire());
        assertThat(read.get(BOUND_SECONDS, TimeUnit.SECONDS)).isEmpty();
        write.release();
    }

    @Test
    void anUpgradeFailsAtOnceInsteadOfWaitingForItself() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock lock = client().readWriteLock(name);
        Lease read = lock.readLock().tryAcquire().orElseThrow();
        long start = System.nanoTime();
        assertThatThrownBy(() -> lock.writeLock().tryAcquire(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("holds the read lock");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
        read.release();
        // Once the read lock is released, the same thread may write.
        assertThat(lock.writeLock().tryAcquire()).isPresent();
    }

    /** Issue #39 (8): the async forms report the refused upgrade through their future, not by throwing. */
    @Test
    void anAsyncUpgradeFailsItsFutureAtOnce() throws Exception {
        DistributedReadWriteLock lock = client().readWriteLock(uniqueName());
        Lease read = lock.readLock().tryAcquire().orElseThrow();
        CompletableFuture<Lease> write = lock.writeLock().acquireAsync(Duration.ofSeconds(5));
        CompletableFuture<Optional<Lease>> tryWrite = lock.writeLock().tryAcquireAsync(Duration.ofSeconds(5));
        for (CompletableFuture<?> future : List.of(write, tryWrite)) {
            assertThat(future.handle((value, error) -> error).get(1, TimeUnit.SECONDS))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("holds the read lock");
        }
        read.release();
    }

    /** Issue #40 (3): the read-write lock as a whole can be administered, not only each half. */
    @Test
    void forceReleaseRemovesReadersAndTheWriterAlike() throws Exception {
        DistributedReadWriteLock lock = client().readWriteLock(uniqueName());
        Lease r1 = lock.readLock().acquire();
        Lease r2 = client().readWriteLock(lock.name()).readLock().acquire();
        assertThat(lock.forceRelease()).hasValue(0);
        assertThat(r1.confirm()).isFalse();
        assertThat(r2.confirm()).isFalse();
        assertThat(lock.inspect().readers()).isZero();
        Lease write = lock.writeLock().acquire();
        assertThat(lock.forceReleaseAsync().get(BOUND_SECONDS, TimeUnit.SECONDS)).hasValue(write.fencingToken());
        assertThat(write.release()).isFalse();
        assertThat(lock.forceRelease()).isEmpty();
    }

    @Test
    void eachReaderIsRenewedAndToldOfItsOwnLoss() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock lock = client(b -> b.defaultLease(Duration.ofMillis(300))).readWriteLock(name);
        Lease r1 = lock.readLock().acquire();
        Lease r2 = lock.readLock().acquire();
        CountDownLatch lost = new CountDownLatch(2);
        r1.onLost(lost::countDown);
        r2.onLost(lost::countDown);
        // The test's intent: held through three periods of their 300 ms lease, renewed by the watchdog.
        Thread.sleep(900);
        assertThat(r1.isHeld()).isTrue();
        assertThat(r2.isHeld()).isTrue();
        assertThat(client().readWriteLock(name).writeLock().tryAcquire()).isEmpty();
        assertThat(lock.writeLock().forceRelease()).isEmpty();
        assertThat(lock.readLock().forceRelease()).isPresent();
        assertThat(lost.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(r1.release()).isFalse();
        assertThat(client().readWriteLock(name).writeLock().tryAcquire()).isPresent();
    }

    @Test
    void aDeadReadersShareEndsWithItsLease() throws Exception {
        String name = uniqueName();
        client().readWriteLock(name).readLock().tryAcquire(Duration.ZERO, Duration.ofMillis(600)).orElseThrow();
        long start = System.nanoTime();
        Lease writer = client().readWriteLock(name).writeLock().tryAcquire(Duration.ofSeconds(BOUND_SECONDS))
                .orElseThrow();
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(waited).isGreaterThan(Duration.ofMillis(450)).isLessThan(Duration.ofMillis(2_000));
        assertThat(writer.isHeld()).isTrue();
    }

    @Test
    void theReadHalfWorksAsAJavaLock() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock lock = client().readWriteLock(name);
        Lock read = lock.readLock().asLock();
        read.lock();
        try {
            client().readWriteLock(name).readLock().tryAcquire().orElseThrow().release();
            assertThat(client().readWriteLock(name).writeLock().tryAcquire()).isEmpty();
        } finally {
            read.unlock();
        }
        assertThat(client().readWriteLock(name).writeLock().tryAcquire()).isPresent();
    }

    @Test
    void theReadWriteLockDoesNotMeetTheLockOrSemaphoreOfItsName() {
        String name = uniqueName();
        LockClient client = client();
        Lease write = client.readWriteLock(name).writeLock().tryAcquire().orElseThrow();
        assertThat(client.lock(name).tryAcquire()).isPresent();
        assertThat(client.semaphore(name, 1).tryAcquire(1)).isPresent();
        write.release();
    }

    /**
     * Waits until the waiters are queued and subscribed, and the last try each sent on subscribing has been answered. A
     * client's first waiter of the lock tries with arm 0, which queues it, subscribes to its client's grant channel
     * and, once subscribed, tries again with arm 1 (a grant published meanwhile was missed). A later waiter of that
     * client whose first try was sent while the channel was subscribed already missed nothing (Notifier.unbroken): it
     * joins and waits without a second try, its arm staying 0 (ShareAcquisition.onHeld). The call sites make that
     * deterministic by starting such a waiter only once its client's first one shows arm 1. Every waiter tries again
     * about a second later (to renew its registration), hence "at least". A try writes its arm into the waiter's
     * registration, so once every registration names at least its arm in {@code minArms}, Redis has run each waiter's
     * last try; then a refused try of each waiting client, answered on the same connection after its waiters' tries,
     * shows that the client has handled their answers too. A refused try never registers, lends or fences, and leaves
     * the queue alone.
     *
     * @param refused a half of each waiting client's lock whose try, without waiting, is refused
     * @param minArms per waiter, in queue order, the least arm its registration shows: 1 for its client's first
     *                waiter, 0 for a later one
     */
    private void awaitQueuedAndListening(String name, List<DistributedLock> refused, long... minArms)
            throws InterruptedException {
        await(() -> {
            List<Long> arms = registrationArms(name);
            if (arms.size() != minArms.length) {
                return false;
            }
            for (int i = 0; i < minArms.length; i++) {
                if (arms.get(i) < minArms[i]) {
                    return false;
                }
            }
            return true;
        }, Duration.ofSeconds(5), minArms.length + " waiters of " + name + " queued, arms at least "
                + Arrays.toString(minArms));
        for (DistributedLock half : refused) {
            assertThat(half.tryAcquire()).isEmpty();
        }
    }

    /**
     * The arm (the try that wrote it) of each queued waiter's registration, in queue order, or -1 for a waiter with
     * none: "until:grant:arm:permits:client" (queue.lua, share.lua).
     */
    @SuppressWarnings("unchecked")
    private List<Long> registrationArms(String name) {
        List<String> tokens = (List<String>) server.call("ZRANGE", queueKey(name), "0", "-1");
        if (tokens.isEmpty()) {
            return List.of();
        }
        List<String> args = new ArrayList<>();
        args.add("HMGET");
        args.add("test:{" + name + "}:rw:r");
        args.addAll(tokens);
        return ((List<String>) server.call(args.toArray(String[]::new))).stream()
                .map(entry -> entry == null ? -1L : Long.parseLong(entry.split(":")[2])).toList();
    }

    /** Acquires a half of the lock on a thread of its own, which a lease records as its owner. */
    private static CompletableFuture<Lease> onItsOwnThread(ExecutorService pool, DistributedLock half) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return half.tryAcquire(Duration.ofSeconds(BOUND_SECONDS)).orElseThrow();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, pool);
    }

    @Test
    void aWritersReleaseHandsTheLockToTheReadersOfItsClientQueuedBehindItUpToTheNextWriter() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock lock = recorded(client()).readWriteLock(name);
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try {
            Lease writer = lock.writeLock().acquire();
            List<CompletableFuture<Lease>> readers = new ArrayList<>();
            // This thread holds the write lock, so its try of the read lock would be granted beside it (a
            // downgrade); its try of the write lock is refused.
            List<DistributedLock> refused = List.of(lock.writeLock());
            readers.add(onItsOwnThread(pool, lock.readLock()));
            // The client's first waiter subscribes its channel before the others try (see awaitQueuedAndListening).
            awaitQueuedAndListening(name, refused, 1);
            for (int i = 1; i < 3; i++) {
                readers.add(onItsOwnThread(pool, lock.readLock()));
                awaitQueued(name, i + 1);
            }
            CompletableFuture<Lease> nextWriter = onItsOwnThread(pool, lock.writeLock());
            awaitQueued(name, 4);
            CompletableFuture<Lease> lateReader = onItsOwnThread(pool, lock.readLock());
            awaitQueuedAndListening(name, refused, 1, 0, 0, 0, 0);
            server.call("CONFIG", "RESETSTAT");
            assertThat(writer.release()).isTrue();
            List<Lease> leases = new ArrayList<>();
            for (CompletableFuture<Lease> reader : readers) {
                leases.add(reader.get(BOUND_SECONDS, TimeUnit.SECONDS));
            }
            // The three readers queued behind the writer took its share over together: one EVAL moved it, no release
            // script granted it, and nothing was published.
            assertThat(commandCounts("evalsha", "eval", "publish")).containsEntry("evalsha", 0L)
                    .containsEntry("eval", 1L).containsEntry("publish", 0L);
            assertThat(leases).allMatch(Lease::isHeld);
            // A reader's token is the last writer's: the handover issued none of its own.
            assertThat(leases).allMatch(lease -> lease.fencingToken() == writer.fencingToken());
            // The writer queued behind them waits, and so does the reader behind that writer (the test's intent: a
            // window in which either, let in, would be seen).
            Thread.sleep(200);
            assertThat(nextWriter).isNotDone();
            assertThat(lateReader).isNotDone();
            assertThat(server.call("ZCARD", queueKey(name))).isEqualTo(2L);
            for (Lease lease : leases) {
                assertThat(lease.release()).isTrue();
            }
            Lease next = nextWriter.get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertThat(next.fencingToken()).isGreaterThan(writer.fencingToken());
            assertThat(lateReader).isNotDone();
            assertThat(next.release()).isTrue();
            Lease last = lateReader.get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertThat(last.fencingToken()).isEqualTo(next.fencingToken());
            assertThat(last.release()).isTrue();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aWriterOfAnotherClientQueuedFirstIsNotPassedByAReaderOfTheReleasingClient() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock lock = recorded(client()).readWriteLock(name);
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try {
            Lease writer = lock.writeLock().acquire();
            DistributedReadWriteLock other = recorded(client()).readWriteLock(name);
            CompletableFuture<Optional<Lease>> otherWriter = other.writeLock()
                    .tryAcquireAsync(Duration.ofSeconds(BOUND_SECONDS));
            awaitQueued(name, 1);
            CompletableFuture<Lease> reader = onItsOwnThread(pool, lock.readLock());
            // Each waiter is its client's first. This thread holds the write lock, so its try of the read lock
            // would be granted beside it (a downgrade); its try of the write lock is refused.
            awaitQueuedAndListening(name, List.of(other.writeLock(), lock.writeLock()), 1, 1);
            server.call("CONFIG", "RESETSTAT");
            assertThat(writer.release()).isTrue();
            Lease next = otherWriter.get(BOUND_SECONDS, TimeUnit.SECONDS).orElseThrow();
            assertThat(calls("eval")).isZero();
            // The test's intent: a window in which a reader let in beside the writer would be seen.
            Thread.sleep(200);
            assertThat(reader).isNotDone();
            assertThat(next.release()).isTrue();
            assertThat(reader.get(BOUND_SECONDS, TimeUnit.SECONDS).release()).isTrue();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aReadersReleaseDoesNotHandItsShareToAReaderQueuedBehindAWriterOfItsClient() throws Exception {
        String name = uniqueName();
        DistributedReadWriteLock lock = recorded(client()).readWriteLock(name);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Lease reader = lock.readLock().acquire();
            CompletableFuture<Lease> writer = onItsOwnThread(pool, lock.writeLock());
            // This thread holds the read lock, so its try of the write lock throws (an upgrade); its try of the
            // read lock is refused, the writer being queued first.
            List<DistributedLock> refused = List.of(lock.readLock());
            // The client's first waiter subscribes its channel before the other tries (see awaitQueuedAndListening).
            awaitQueuedAndListening(name, refused, 1);
            CompletableFuture<Lease> late = onItsOwnThread(pool, lock.readLock());
            awaitQueuedAndListening(name, refused, 1, 0);
            server.call("CONFIG", "RESETSTAT");
            assertThat(reader.release()).isTrue();
            Lease written = writer.get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertThat(calls("eval")).isZero();
            // The test's intent: a window in which a reader let in beside the writer would be seen.
            Thread.sleep(200);
            assertThat(late).isNotDone();
            assertThat(written.release()).isTrue();
            assertThat(late.get(BOUND_SECONDS, TimeUnit.SECONDS).release()).isTrue();
        } finally {
            pool.shutdownNow();
        }
    }
}
