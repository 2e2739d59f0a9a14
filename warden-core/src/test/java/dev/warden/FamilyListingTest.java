package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Who holds and who waits for read-write locks and semaphores ({@link DistributedReadWriteLock#inspect()},
 * {@link DistributedSemaphore#inspect()}), and their listings ({@link LockClient#readWriteLocks(String, int)},
 * {@link LockClient#semaphores(String, int)}), against a real server.
 */
@Timeout(60)
class FamilyListingTest extends RedisTestSupport {

    /** Runs {@code acquire} on a new thread of this name and answers its lease, or its failure. */
    private static CompletableFuture<Optional<Lease>> on(String thread, Acquire acquire) {
        CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                result.complete(acquire.run());
            } catch (InterruptedException | RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, thread);
        t.start();
        return result;
    }

    interface Acquire {
        Optional<Lease> run() throws InterruptedException;
    }

    private static Lease held(CompletableFuture<Optional<Lease>> acquired) throws Exception {
        return acquired.get(10, TimeUnit.SECONDS).orElseThrow();
    }

    private static List<String> threads(List<Identity> who) {
        return who.stream().map(w -> w.threadName().orElse("?")).toList();
    }

    private static boolean named(Supplier<List<Identity>> who) {
        return who.get().stream().allMatch(w -> w.threadName().isPresent());
    }

    @Test
    void inspectNamesTheWriterTheReadersAndTheWaitersOfAReadWriteLock() throws Exception {
        LockClient orders = client(b -> b.clientName("orders"));
        LockClient billing = client(b -> b.clientName("billing"));
        String name = uniqueName();
        DistributedReadWriteLock lock = orders.readWriteLock(name);
        Lease writer = held(on("writer-1", () -> lock.writeLock().tryAcquire()));
        CompletableFuture<Optional<Lease>> reader = on("reader-1",
                () -> billing.readWriteLock(name).readLock().tryAcquire(Duration.ofSeconds(20)));
        assertThat(eventually(Duration.ofSeconds(5), () -> lock.inspect().waiters() == 1)).isTrue();
        // The records are written from each client's scheduler right after its first acquisition (or wait).
        assertThat(eventually(Duration.ofSeconds(5), () -> lock.inspect().writer()
                .flatMap(Identity::threadName).isPresent() && named(() -> lock.inspect().waiting()))).isTrue();
        // The test's intent: the wait lasts long enough to be shown (at least 50 ms).
        Thread.sleep(100);

        ReadWriteLockInfo info = lock.inspect();
        assertThat(info.writeLocked()).isTrue();
        Identity who = info.writer().orElseThrow();
        assertThat(who.clientName()).contains("orders");
        assertThat(who.threadName()).contains("writer-1");
        assertThat(who.pid()).hasValue(ProcessHandle.current().pid());
        assertThat(info.reading()).isEmpty();
        assertThat(threads(info.waiting())).containsExactly("reader-1");
        assertThat(info.waiting().get(0).clientName()).contains("billing");
        assertThat(info.longestWait()).hasValueSatisfying(d -> assertThat(d)
                .isBetween(Duration.ofMillis(50), Duration.ofSeconds(20)));
        // Each half, as a DistributedLock, names its own holder.
        assertThat(lock.writeLock().inspect().holderIdentity().flatMap(Identity::threadName)).contains("writer-1");
        assertThat(lock.readLock().inspect().holderIdentity()).isEmpty();
        assertThat(threads(lock.readLock().inspect().waiting())).containsExactly("reader-1");

        writer.close();
        Lease read = held(reader);
        Lease second = held(on("reader-2", () -> lock.readLock().tryAcquire()));
        assertThat(eventually(Duration.ofSeconds(5), () -> named(() -> lock.inspect().reading()))).isTrue();
        ReadWriteLockInfo reading = lock.inspect();
        assertThat(reading.writer()).isEmpty();
        assertThat(reading.readers()).isEqualTo(2);
        assertThat(threads(reading.reading())).containsExactlyInAnyOrder("reader-1", "reader-2");
        assertThat(reading.waiting()).isEmpty();
        assertThat(reading.longestWait()).isEmpty();
        assertThat(lock.readLock().inspect().holderIdentity().flatMap(Identity::threadName)).isPresent();
        read.close();
        second.close();
    }

    @Test
    void inspectNamesThePermitHoldersAndWaitersOfASemaphore() throws Exception {
        LockClient client = client(b -> b.clientName("jobs"));
        String name = uniqueName();
        DistributedSemaphore semaphore = client.semaphore(name, 3);
        Lease two = held(on("pool-1", () -> semaphore.tryAcquire(2)));
        Lease one = held(on("pool-2", () -> semaphore.tryAcquire(1)));
        CompletableFuture<Optional<Lease>> waiter = on("pool-3",
                () -> semaphore.tryAcquire(2, Duration.ofSeconds(20)));
        assertThat(eventually(Duration.ofSeconds(5), () -> semaphore.inspect().waiters() == 1
                && named(() -> semaphore.inspect().holding()) && named(() -> semaphore.inspect().waiting()))).isTrue();

        SemaphoreInfo info = semaphore.inspect();
        assertThat(info.holders()).isEqualTo(2);
        assertThat(info.available()).isZero();
        assertThat(threads(info.holding())).containsExactlyInAnyOrder("pool-1", "pool-2");
        assertThat(info.holding()).allSatisfy(w -> assertThat(w.clientName()).contains("jobs"));
        assertThat(threads(info.waiting())).containsExactly("pool-3");
        assertThat(info.longestWait()).isPresent();

        two.close();
        Lease granted = held(waiter);
        assertThat(eventually(Duration.ofSeconds(5), () -> threads(semaphore.inspect().holding())
                .containsAll(List.of("pool-2", "pool-3")))).isTrue();
        assertThat(semaphore.inspect().waiting()).isEmpty();
        granted.close();
        one.close();
    }

    @Test
    void listingsHoldReadWriteLocksAndSemaphoresThatAreHeldOrWaitedForEachKindApart() throws Exception {
        LockClient client = client(b -> b.clientName("lister"));
        LockClient other = client();
        List<Lease> leases = new ArrayList<>();
        leases.add(held(on("w", () -> client.readWriteLock("rw-write").writeLock().tryAcquire())));
        leases.add(held(on("r", () -> client.readWriteLock("rw-read").readLock().tryAcquire())));
        client.readWriteLock("rw-free").writeLock().tryAcquire().orElseThrow().close();
        leases.add(held(on("s", () -> client.semaphore("sem-held", 2).tryAcquire(2))));
        CompletableFuture<Optional<Lease>> waiting = on("s-wait",
                () -> other.semaphore("sem-held", 2).tryAcquire(1, Duration.ofSeconds(20)));
        client.semaphore("sem-free", 2).tryAcquire(1).orElseThrow().close();
        // A mutex of one of these names is another lock.
        leases.add(client.lock("rw-write").tryAcquire().orElseThrow());
        assertThat(eventually(Duration.ofSeconds(5), () -> client.semaphore("sem-held", 2).inspect().waiters() == 1))
                .isTrue();
        assertThat(eventually(Duration.ofSeconds(5), () -> client.readWriteLocks("*", 100).stream()
                .allMatch(i -> i.writer().or(() -> i.reading().stream().findFirst())
                        .flatMap(Identity::threadName).isPresent()))).isTrue();

        List<ReadWriteLockInfo> readWrite = other.readWriteLocks("*", 100);
        assertThat(readWrite).extracting(ReadWriteLockInfo::name).containsExactly("rw-read", "rw-write");
        assertThat(readWrite.get(0).readers()).isEqualTo(1);
        assertThat(threads(readWrite.get(0).reading())).containsExactly("r");
        assertThat(readWrite.get(1).writeLocked()).isTrue();
        assertThat(readWrite.get(1).writer().flatMap(Identity::clientName)).contains("lister");
        assertThat(readWrite.get(1).lastFencingToken()).isPositive();

        List<SemaphoreInfo> semaphores = other.semaphores("*", 100);
        assertThat(semaphores).extracting(SemaphoreInfo::name).containsExactly("sem-held");
        assertThat(semaphores.get(0).permits()).isEqualTo(2);
        assertThat(semaphores.get(0).waiters()).isEqualTo(1);
        assertThat(threads(semaphores.get(0).holding())).containsExactly("s");
        assertThat(semaphores.get(0).waiting()).hasSize(1);

        // Each listing holds its own kind; the glob and the limit work as for locks.
        assertThat(other.locks("*", 100)).extracting(LockInfo::name).contains("rw-write")
                .doesNotContain("rw-read", "sem-held");
        assertThat(other.readWriteLocks("rw-r*", 100)).extracting(ReadWriteLockInfo::name).containsExactly("rw-read");
        assertThat(other.readWriteLocks("*", 1)).hasSize(1);
        assertThat(other.semaphoresAsync("sem-*", 10).get(10, TimeUnit.SECONDS)).extracting(SemaphoreInfo::name)
                .containsExactly("sem-held");
        assertThat(other.readWriteLocksAsync("*", 10).get(10, TimeUnit.SECONDS)).hasSize(2);
        assertThatThrownBy(() -> other.semaphores("[", 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> other.readWriteLocks("*", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");

        leases.get(2).close();
        held(waiting).close();
        for (Lease lease : leases) {
            lease.close();
        }
        assertThat(other.readWriteLocks("*", 100)).isEmpty();
        assertThat(other.semaphores("*", 100)).isEmpty();
        other.close();
        assertThatThrownBy(() -> other.semaphores("*", 10)).isInstanceOf(IllegalStateException.class);
    }
}
