package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Holder identity: who holds a lock and who waits, named by client, host, process and thread. */
class IdentityTest extends RedisTestSupport {
    private static final long PID = ProcessHandle.current().pid();

    @Test
    void theHolderAndTheWaitersAreNamedByClientHostProcessAndThread() throws Exception {
        LockClient orders = client(b -> b.clientName("orders"));
        LockClient billing = client(b -> b.clientName("billing"));
        String name = uniqueName();
        AtomicReference<Lease> held = new AtomicReference<>();
        Thread holder = new Thread(() -> held.set(orders.lock(name).tryAcquire().orElseThrow()), "scheduler-3");
        holder.start();
        holder.join(TimeUnit.SECONDS.toMillis(10));
        List<CompletableFuture<Optional<Lease>>> waits = new ArrayList<>();
        List<Thread> waiters = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            CompletableFuture<Optional<Lease>> wait = new CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                try {
                    wait.complete(billing.lock(name).tryAcquire(Duration.ofSeconds(20)));
                } catch (InterruptedException | RuntimeException e) {
                    wait.completeExceptionally(e);
                }
            }, "worker-" + i);
            waiter.start();
            waiters.add(waiter);
            waits.add(wait);
            int count = i;
            assertThat(eventually(Duration.ofSeconds(5), () -> orders.lock(name).inspect().waiters() == count))
                    .isTrue();
            assertThat(wait).isNotDone();
        }
        DistributedLock observer = orders.lock(name);
        // The records are written from each client's scheduler right after its first acquisition.
        assertThat(eventually(Duration.ofSeconds(5), () -> observer.inspect().waiting().stream()
                .allMatch(w -> w.threadName().isPresent()) && observer.inspect().holderIdentity()
                .flatMap(Identity::threadName).isPresent())).isTrue();

        LockInfo info = observer.inspect();
        Identity who = info.holderIdentity().orElseThrow();
        assertThat(who.clientName()).contains("orders");
        assertThat(who.threadName()).contains("scheduler-3");
        assertThat(who.threadId()).isEqualTo(holder.getId());
        assertThat(who.pid()).hasValue(PID);
        assertThat(who.host()).isPresent().get().asString().isNotBlank();
        assertThat(who.describe()).startsWith("orders-" + who.client() + " (")
                .endsWith(", pid " + PID + ", thread scheduler-3)");
        assertThat(info.waiting()).extracting(w -> w.threadName().orElseThrow())
                .containsExactly("worker-1", "worker-2");
        assertThat(info.waiting()).extracting(w -> w.clientName().orElseThrow())
                .containsExactly("billing", "billing");
        assertThat(info.waiting()).extracting(Identity::threadId)
                .containsExactly(waiters.get(0).getId(), waiters.get(1).getId());
        assertThat(info.waiting().get(0).client()).isNotEqualTo(who.client());

        held.get().close();
        assertThat(waits.get(0).get(10, TimeUnit.SECONDS)).isPresent();
        LockInfo next = observer.inspect();
        assertThat(next.holderIdentity().flatMap(Identity::threadName)).contains("worker-1");
        assertThat(next.waiting()).extracting(w -> w.threadName().orElseThrow()).containsExactly("worker-2");
        waits.get(0).get().orElseThrow().close();
        waits.get(1).get(10, TimeUnit.SECONDS).orElseThrow().close();
    }

    @Test
    void aClientThatOnlyInspectsWritesNothingAndOneThatAcquiresWritesOneRecordUntilItCloses() throws Exception {
        LockClient reader = client();
        String name = uniqueName();
        reader.lock(name).inspect();
        reader.lock(name).isLocked();
        reader.locks("*", 10);
        assertThat(server.call("DBSIZE")).isEqualTo(0L);

        LockClient writer = client(b -> b.clientName("writer"));
        writer.lock(name).tryAcquire().orElseThrow().close();
        assertThat(eventually(Duration.ofSeconds(5), () -> keys("test:client:*").size() == 1)).isTrue();
        String record = keys("test:client:*").get(0);
        assertThat((Long) server.call("PTTL", record)).isBetween(1L, 180_000L);
        // One record per client, however many locks and threads: a held lock costs its token's mark only.
        for (int i = 0; i < 50; i++) {
            writer.lock(uniqueName()).tryAcquire().orElseThrow().close();
        }
        assertThat(keys("test:client:*")).containsExactly(record);
        // A closed client holds nothing, so its record goes with it.
        writer.close();
        assertThat(keys("test:client:*")).isEmpty();
    }

    @Test
    void aNewThreadsFirstAcquisitionRewritesTheWholeRecordWithOneSet() throws Exception {
        LockClient client = client();
        String name = uniqueName();
        acquireOn(client, name, "warm-up").close();
        assertThat(eventually(Duration.ofSeconds(5), () -> keys("test:client:*").size() == 1)).isTrue();
        server.call("CONFIG", "RESETSTAT");
        acquireOn(client, uniqueName(), "newcomer").close();
        // The lock's plain SET NX, and one SET of the whole record: no script, no other write.
        assertThat(eventually(Duration.ofSeconds(5), () -> commandCalls("set") == 2)).isTrue();
        assertThat(commandCalls("hset") + commandCalls("pexpire")).isZero();
        String record = (String) server.call("GET", keys("test:client:*").get(0));
        assertThat(record).contains("=warm-up\n").contains("=newcomer\n").startsWith("name=warden\nhost=");
    }

    @Test
    void aRecordLostWithTheDataLeavesTheTagAndThreadAndIsWrittenAgainWithEveryThread() throws Exception {
        LockClient client = client(b -> b.clientName("svc"));
        String name = uniqueName();
        Lease lease = acquireOn(client, name, "first-thread");
        DistributedLock observer = client.lock(name);
        assertThat(eventually(Duration.ofSeconds(5), () -> observer.inspect().holderIdentity()
                .flatMap(Identity::threadName).isPresent())).isTrue();

        String record = keys("test:client:*").get(0);
        server.call("DEL", record);
        Identity bare = observer.inspect().holderIdentity().orElseThrow();
        assertThat(bare.clientName()).isEmpty();
        assertThat(bare.threadName()).isEmpty();
        assertThat(bare.pid()).isEmpty();
        assertThat(bare.describe()).isEqualTo("client " + bare.client() + " (thread #" + bare.threadId() + ")");

        // A new thread's acquisition finds the record gone, and writes it again with the threads seen before.
        acquireOn(client, uniqueName(), "second-thread").close();
        assertThat(eventually(Duration.ofSeconds(5), () -> observer.inspect().holderIdentity()
                .flatMap(Identity::threadName).equals(Optional.of("first-thread")))).isTrue();
        assertThat(observer.inspect().holderIdentity().orElseThrow().clientName()).contains("svc");
        lease.close();
    }

    @Test
    void aListingNamesTheHoldersOfManyLocksReadingEachClientsRecordOnce() throws Exception {
        LockClient client = client(b -> b.clientName("many"));
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            leases.add(client.lock("listed-" + i).tryAcquire().orElseThrow());
        }
        assertThat(eventually(Duration.ofSeconds(5), () -> client.lock("listed-0").inspect().holderIdentity()
                .flatMap(Identity::threadName).isPresent())).isTrue();
        server.call("CONFIG", "RESETSTAT");
        List<LockInfo> listed = client.locks("listed-*", 1000);
        assertThat(listed).hasSize(200);
        assertThat(listed).allSatisfy(info -> assertThat(info.holderIdentity().flatMap(Identity::threadName))
                .contains(Thread.currentThread().getName()));
        // Each inspect script reads its lock's key with GET too: one more is the client's record.
        assertThat(commandCalls("get")).isEqualTo(commandCalls("evalsha") + 1);
        leases.forEach(Lease::close);
    }

    private static Lease acquireOn(LockClient client, String name, String threadName) throws Exception {
        CompletableFuture<Lease> lease = new CompletableFuture<>();
        Thread thread = new Thread(() -> lease.complete(client.lock(name).tryAcquire().orElseThrow()), threadName);
        thread.start();
        return lease.get(10, TimeUnit.SECONDS);
    }

    @SuppressWarnings("unchecked")
    private static List<String> keys(String pattern) {
        return (List<String>) server.call("KEYS", pattern);
    }

    private static long commandCalls(String command) {
        String stats = (String) server.call("INFO", "commandstats");
        for (String line : stats.split("\r\n")) {
            if (line.startsWith("cmdstat_" + command + ":calls=")) {
                return Long.parseLong(line.substring(line.indexOf('=') + 1, line.indexOf(',')));
            }
        }
        return 0;
    }
}
