package dev.warden.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockException;
import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Sentinel-managed masters. A master, two replicas and three sentinels: the master is killed while a lease is held
 * and another client waits; clients follow the promoted replica, and the acknowledged lease either survives or is
 * reported lost, never held by two at once. And a client whose connections are left on a demoted master moves to
 * the master Sentinel names.
 */
// Tagged "full": starts replicas, Sentinels or a cluster (minutes together); in `mvn -B verify -Pfull` and CI.
@Tag("full")
class SentinelTest {
    private static final String MASTER = "wardenmaster";
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    @Test
    void clientsFollowAFailoverAndAnAcknowledgedLeaseIsNeverHeldTwice() throws Exception {
        // Redis 7.0 waits 5 s by default before a replica's first (diskless) sync: on every server, which may
        // become the master.
        RedisServer master = keep(RedisServer.builder().args("--repl-diskless-sync-delay", "0").start());
        for (int i = 0; i < 2; i++) {
            keep(RedisServer.builder().args("--repl-diskless-sync-delay", "0", "--replicaof", master.host(),
                    Integer.toString(master.port())).start()).awaitReplicaSync(Duration.ofSeconds(10));
        }
        List<String> sentinels = new ArrayList<>();
        List<RedisServer> sentinelServers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RedisServer sentinel = keep(RedisServer.builder()
                    .sentinel(MASTER, master.port(), 2, Duration.ofMillis(1000)).start());
            sentinels.add(sentinel.host() + ":" + sentinel.port());
            sentinelServers.add(sentinel);
        }
        for (RedisServer sentinel : sentinelServers) {
            // Ready for a failover once each knows both replicas and the two other sentinels.
            sentinel.awaitSentinelReady(2, 2, Duration.ofSeconds(20));
        }
        String uri = "redis-sentinel://" + String.join(",", sentinels) + "#" + MASTER;
        LockClient a = client(uri);
        LockClient b = client(uri);

        Lease held = a.lock("orders").tryAcquire().orElseThrow();
        assertThat(held.acknowledgements()).isGreaterThanOrEqualTo(1);
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(lost::countDown);
        AtomicBoolean doubled = new AtomicBoolean();
        CompletableFuture<Optional<Lease>> waiting = b.lock("orders").tryAcquireAsync(Duration.ofSeconds(40));
        waiting.thenAccept(lease -> doubled.compareAndSet(false, lease.isPresent() && held.isHeld()));

        master.kill();
        sentinelServers.get(0).awaitLog("+switch-master", Duration.ofSeconds(30));

        // Clients continue: a new acquire on another lock succeeds through the promoted master.
        DistributedLock other = a.lock("other");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Optional<Lease> otherLease = Optional.empty();
        while (otherLease.isEmpty() && System.nanoTime() - end < 0) {
            try {
                otherLease = other.tryAcquire(Duration.ofSeconds(1));
            } catch (LockException e) {
                // Failing over, or the remaining replica is not attached yet: acknowledgements fail closed. A pause
                // between tries: the loop waits for the lock itself.
                Thread.sleep(100);
            }
        }
        assertThat(otherLease).isPresent();
        if (waiting.isCompletedExceptionally()) {
            // A retry of the waiting acquire met the dead master: a loud failure, never "not acquired". Wait again.
            assertThat(waiting.handle((lease, e) -> e).get()).isInstanceOf(LockException.class);
            waiting = b.lock("orders").tryAcquireAsync(Duration.ofSeconds(40));
            waiting.thenAccept(lease -> doubled.compareAndSet(false, lease.isPresent() && held.isHeld()));
        }
        assertThat(waiting).isNotDone();

        // The held lease survived the failover (the promoted replica had it) or was reported lost.
        boolean survived = lost.getCount() == 1 && held.isHeld();
        if (survived) {
            assertThat(held.release()).isTrue();
        }
        Optional<Lease> next = waiting.get(20, TimeUnit.SECONDS);
        assertThat(next).isPresent();
        assertThat(doubled).isFalse();
        assertThat(next.get().fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(survived).as("the acknowledged lease survived the failover").isTrue();
    }

    @Test
    void aClientLeftOnADemotedMasterMovesToTheMasterSentinelNamesNow() throws Exception {
        RedisServer first = keep(RedisServer.builder().args("--repl-diskless-sync-delay", "0").start());
        RedisServer second = keep(RedisServer.builder().args("--repl-diskless-sync-delay", "0",
                "--replicaof", first.host(), Integer.toString(first.port())).start());
        second.awaitReplicaSync(Duration.ofSeconds(10));
        RedisServer sentinel = keep(RedisServer.builder()
                .sentinel(MASTER, first.port(), 1, Duration.ofSeconds(60)).start());
        sentinel.awaitSentinelReady(1, 0, Duration.ofSeconds(20));
        LockClient client = client("redis-sentinel://" + sentinel.host() + ":" + sentinel.port() + "#" + MASTER);
        // Opens both connections: the acknowledged acquire's and the shared one the release uses.
        assertThat(client.lock("before").tryAcquire().orElseThrow().release()).isTrue();

        // The roles swap behind the client's back; its connections stay open to the old master, now a replica.
        second.call("REPLICAOF", "NO", "ONE");
        first.call("REPLICAOF", second.host(), Integer.toString(second.port()));
        second.call("SET", "probe", "1");
        assertThat(second.call("WAIT", "1", "10000")).isEqualTo(1L);
        sentinel.call("SENTINEL", "REMOVE", MASTER);
        sentinel.call("SENTINEL", "MONITOR", MASTER, second.host(), Integer.toString(second.port()), "1");

        DistributedLock lock = client.lock("after");
        List<LockException> failures = new ArrayList<>();
        Optional<Lease> lease = Optional.empty();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (lease.isEmpty() && System.nanoTime() - end < 0) {
            try {
                lease = lock.tryAcquire();
            } catch (LockException e) {
                failures.add(e);
                // A pause between tries: the loop waits for the lock itself.
                Thread.sleep(20);
            }
        }
        // The demoted master refuses loudly at first (an attempt racing the move may see its connection closed);
        // then the client has asked Sentinel again and moved.
        assertThat(failures).isNotEmpty();
        assertThat(failures.get(0)).hasMessageContaining("READONLY");
        assertThat(lease).isPresent();
        assertThat(lease.get().acknowledgements()).isGreaterThanOrEqualTo(1);
        assertThat(lease.get().release()).isTrue();
        assertThat(client.lock("after").tryAcquire()).isPresent();
    }

    private LockClient client(String uri) {
        return keep(LockClient.create(LockConfig.builder().redisUri(uri)
                .replicaAcks(1, Duration.ofMillis(500))
                .defaultLease(Duration.ofSeconds(6))
                .commandTimeout(Duration.ofSeconds(1))
                .build()));
    }

    private <T extends AutoCloseable> T keep(T resource) {
        resources.add(resource);
        return resource;
    }
}
