package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Errors are never silent: Redis down, slow, or holding something else is an exception, not "not acquired". */
class FailureTest extends RedisTestSupport {

    @Test
    void killedRedisFailsCallsWithinTheTimeoutAndTheSameClientRecovers() throws Exception {
        LockClient client = client(b -> b.commandTimeout(Duration.ofMillis(500)));
        DistributedLock lock = client.lock(uniqueName());
        lock.tryAcquire().orElseThrow().release();
        server.kill();
        for (int i = 0; i < 3; i++) {
            long t0 = System.nanoTime();
            assertThatThrownBy(lock::tryAcquire).isInstanceOf(LockException.class)
                    .satisfies(e -> assertThat(e).isInstanceOfAny(LockConnectionException.class,
                            LockTimeoutException.class));
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
        }
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(1))).isInstanceOf(LockException.class);
        assertThatThrownBy(lock::inspect).isInstanceOf(LockException.class);
        server.restart();
        assertThat(eventually(Duration.ofSeconds(10), () -> {
            try {
                return lock.tryAcquire().isPresent();
            } catch (LockException e) {
                return false;
            }
        })).isTrue();
    }

    @Test
    void pausedRedisGivesALockTimeoutExceptionNotAnEmptyResult() {
        DistributedLock lock = client(b -> b.commandTimeout(Duration.ofMillis(300))).lock(uniqueName());
        server.pause();
        try {
            long t0 = System.nanoTime();
            assertThatThrownBy(lock::tryAcquire).isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining(lock.name());
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
        } finally {
            server.resume();
        }
    }

    @Test
    @Timeout(30) // Before the timer swept from the start, this create hung for good.
    void createFailsWithinTheTimeoutWhenRedisIsPausedAndLeavesNoThreadBehind() throws Exception {
        server.pause();
        try {
            long t0 = System.nanoTime();
            // The TCP connection is accepted by the kernel; the handshake's first command is never answered.
            assertThatThrownBy(() -> LockClient.create(LockConfig.builder().redisUri(server.uri())
                    .clientName("paused-create").commandTimeout(Duration.ofMillis(300)).build()))
                    .isInstanceOf(LockException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            assertThat(eventually(Duration.ofSeconds(5), () -> Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.isAlive() && t.getName().startsWith("warden-paused-create-")))).isTrue();
        } finally {
            server.resume();
        }
    }

    @Test
    void acquireThatTimedOutOnASlowServerDoesNotLeaveTheLockHeld() throws Exception {
        String name = uniqueName();
        DistributedLock lock = client(b -> b.commandTimeout(Duration.ofMillis(200))).lock(name);
        lock.tryAcquire().orElseThrow().release();
        // The server answers late: paused (SIGSTOP) before the acquire is sent, resumed 500 ms later, it runs the
        // acquire after the client gave up on it.
        server.pause();
        CompletableFuture<Void> resumed = CompletableFuture.runAsync(server::resume,
                CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS));
        try {
            assertThatThrownBy(lock::tryAcquire).isInstanceOf(LockTimeoutException.class);
        } finally {
            resumed.get(5, TimeUnit.SECONDS);
        }
        assertThat(eventually(Duration.ofSeconds(3), () -> !client().lock(name).isLocked())).isTrue();
    }

    @Test
    void createFailsWithAConnectionExceptionWhenRedisIsDown() {
        int port;
        try (RedisServer gone = RedisServer.start()) {
            port = gone.port();
        }
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> LockClient.create(LockConfig.builder().redisUri("redis://127.0.0.1:" + port)
                .commandTimeout(Duration.ofSeconds(1)).build()))
                .isInstanceOf(LockConnectionException.class).hasMessageContaining("127.0.0.1:" + port);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void keyOfAnotherTypeIsReportedByNameAndNotOverwritten() {
        server.call("HSET", "test:{taken}", "field", "value");
        DistributedLock lock = client().lock("taken");
        assertThatThrownBy(lock::tryAcquire).isInstanceOf(LockException.class)
                .hasMessageContaining("test:{taken}").hasMessageContaining("WRONGTYPE");
        assertThatThrownBy(lock::inspect).isInstanceOf(LockException.class).hasMessageContaining("WRONGTYPE");
        // A waiting acquire first tries a plain SET NX, which leaves an existing key alone; the script then reports it.
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(1))).isInstanceOf(LockException.class)
                .hasMessageContaining("WRONGTYPE");
        assertThat(server.call("HGETALL", "test:{taken}")).isEqualTo(List.of("field", "value"));
    }

    @Test
    void stringThatIsNotAWardenLockIsReportedAndNotOverwritten() {
        server.call("SET", "test:{foreign}", "someone else's value");
        DistributedLock lock = client().lock("foreign");
        assertThatThrownBy(lock::tryAcquire).isInstanceOf(LockException.class)
                .hasMessageContaining("test:{foreign}").hasMessageContaining("not a Warden lock");
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(1))).isInstanceOf(LockException.class)
                .hasMessageContaining("not a Warden lock");
        assertThat(server.call("GET", "test:{foreign}")).isEqualTo("someone else's value");
    }

    @Test
    void flushedScriptsAreReloadedTransparently() throws InterruptedException {
        DistributedLock lock = recorded(client()).lock(uniqueName());
        server.call("CONFIG", "RESETSTAT");
        lock.tryAcquire().orElseThrow().release();
        server.call("SCRIPT", "FLUSH");
        Lease lease = lock.tryAcquire().orElseThrow();
        server.call("SCRIPT", "FLUSH");
        assertThat(lease.release()).isTrue();
        server.call("SCRIPT", "FLUSH");
        assertThat(lock.inspect().held()).isFalse();
        assertThat(calls("eval")).isEqualTo(3);
    }

    @Test
    void killedClientConnectionsAreReconnectedAndWaitersStillWake() throws Exception {
        String name = uniqueName();
        LockClient client = client(b -> b.clientName("victim"));
        Lease lease = client.lock(name).tryAcquire().orElseThrow();
        var waiter = client().lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitWaiting(name, 1);
        server.call("CLIENT", "KILL", "TYPE", "normal");
        server.call("CLIENT", "KILL", "TYPE", "pubsub");
        assertThat(eventually(Duration.ofSeconds(10), () -> {
            try {
                return lease.release();
            } catch (LockException e) {
                return false;
            }
        })).isTrue();
        Lease next = waiter.get(20, TimeUnit.SECONDS);
        assertThat(next.isHeld()).isTrue();
        next.release();
    }

    @Test
    void badArgumentsFailFastNamingTheArgumentAndTheValue() {
        LockClient client = client();
        DistributedLock lock = client.lock(uniqueName());
        assertThatThrownBy(() -> client.lock(null)).isInstanceOf(NullPointerException.class).hasMessage("name");
        assertThatThrownBy(() -> client.lock("  ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must not be blank: '  '");
        assertThatThrownBy(() -> client.lock("x".repeat(513))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must be at most 512 characters: 513");
        assertThat(client.lock("x".repeat(512)).name()).hasSize(512);
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("wait must not be negative: PT-0.001S");
        assertThatThrownBy(() -> lock.tryAcquire(null)).isInstanceOf(NullPointerException.class).hasMessage("wait");
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("lease must be positive: PT0S");
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(-3)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("lease must be positive: PT-3S");
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO, null))
                .isInstanceOf(NullPointerException.class).hasMessage("lease");
        assertThatThrownBy(() -> lock.acquireAsync(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("wait must not be negative: PT-1S");
        assertThatThrownBy(() -> client.lock("x").tryAcquire().orElseThrow().onLost(null))
                .isInstanceOf(NullPointerException.class).hasMessage("callback");
    }

    @Test
    void configurationIsValidatedAsItIsSet() {
        LockConfig.Builder b = LockConfig.builder();
        assertThatThrownBy(() -> b.defaultLease(Duration.ZERO)).hasMessage("defaultLease must be positive: PT0S");
        assertThatThrownBy(() -> b.defaultLease(Duration.ofNanos(10)))
                .hasMessage("defaultLease must be at least 1ms: PT0.00000001S");
        assertThatThrownBy(() -> b.commandTimeout(Duration.ofSeconds(-1)))
                .hasMessage("commandTimeout must be positive: PT-1S");
        assertThatThrownBy(() -> b.keyPrefix(null)).isInstanceOf(NullPointerException.class).hasMessage("keyPrefix");
        assertThatThrownBy(() -> b.spinWait(Duration.ofNanos(-1)))
                .hasMessage("spinWait must be between PT0S and PT0.01S: PT-0.000000001S");
        assertThatThrownBy(() -> b.spinWait(Duration.ofMillis(11)))
                .hasMessage("spinWait must be between PT0S and PT0.01S: PT0.011S");
        assertThatThrownBy(() -> b.spinWait(null)).isInstanceOf(NullPointerException.class).hasMessage("spinWait");
        assertThatThrownBy(() -> b.clientName("a b")).hasMessage("clientName must be non-blank without spaces: 'a b'");
        assertThatThrownBy(() -> b.redisUri("http://host")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("redisUri must start with redis://, rediss://, redis-sentinel:// or rediss-sentinel://: "
                        + "http://host");
        assertThatThrownBy(() -> b.redisUri("redis://user:s3cret@host:notaport"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis://user:***@host").hasMessageNotContaining("s3cret");
        assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class).hasMessage("redisUri, cluster or quorum must be set");
        LockConfig config = b.redisUri("redis://user:s3cret@localhost:6379/2").build();
        assertThat(config.toString()).contains("redis://user:***@localhost:6379/2").doesNotContain("s3cret");
        assertThat(config.defaultLease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.keyPrefix()).isEqualTo("warden:");
        assertThat(config.spinWait()).isEqualTo(Duration.ofNanos(200_000));
        assertThat(config.toBuilder().spinWait(Duration.ZERO).build().spinWait()).isEqualTo(Duration.ZERO);
        // The snapshot does not follow later changes to the builder.
        b.keyPrefix("changed:");
        assertThat(config.keyPrefix()).isEqualTo("warden:");
    }

    @Test
    void databaseIndexAndAclCredentialsComeFromTheUri() {
        server.call("ACL", "SETUSER", "locker", "on", ">pa55", "~*", "&*", "+@all");
        String uri = "redis://locker:pa55@127.0.0.1:" + server.port() + "/3";
        try (LockClient client = LockClient.create(LockConfig.builder().redisUri(uri).keyPrefix("acl:").build())) {
            Lease lease = client.lock("db3").tryAcquire().orElseThrow();
            assertThat(server.call("EXISTS", "acl:{db3}")).isEqualTo(0L);
            Object inDb3;
            try (var resp = new dev.warden.redisserver.Resp("127.0.0.1", server.port(), Duration.ofSeconds(2))) {
                resp.call("SELECT", "3");
                inDb3 = resp.call("EXISTS", "acl:{db3}");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            assertThat(inDb3).isEqualTo(1L);
            assertThat(lease.release()).isTrue();
        }
        String wrong = "redis://locker:wrong@127.0.0.1:" + server.port();
        assertThatThrownBy(() -> LockClient.create(LockConfig.builder().redisUri(wrong).build()))
                .isInstanceOf(LockException.class).hasMessageNotContaining("wrong@");
    }

    @Test
    void closedClientReleasesItsLeasesFailsPendingAcquiresAndStopsItsThreads() throws Exception {
        String name = uniqueName();
        LockClient closing = client(b -> b.clientName("closing"));
        Lease lease = closing.lock(name).tryAcquire().orElseThrow();
        lease.onLost(() -> { });
        String other = uniqueName();
        Lease blocker = client().lock(other).tryAcquire().orElseThrow();
        var pending = closing.lock(other).acquireAsync(Duration.ofSeconds(30));
        assertThat(eventually(Duration.ofSeconds(5), () -> threadsNamed("warden-closing-") >= 1)).isTrue();
        closing.close();
        closing.close();
        assertThat(client().lock(name).isLocked()).isFalse();
        assertThat(lease.isHeld()).isFalse();
        assertThatThrownBy(() -> pending.get(5, java.util.concurrent.TimeUnit.SECONDS))
                .hasCauseInstanceOf(LockException.class);
        assertThatThrownBy(() -> closing.lock("x")).isInstanceOf(IllegalStateException.class);
        assertThat(eventually(Duration.ofSeconds(5), () -> threadsNamed("warden-closing-") == 0)).isTrue();
        blocker.release();
    }

    private static long threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(prefix)).count();
    }
}
