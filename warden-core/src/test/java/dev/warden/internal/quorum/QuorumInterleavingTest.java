package dev.warden.internal.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockConnectionException;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.HeldTimers;
import dev.warden.internal.base.Orders;
import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The interleavings of a quorum lock's waiter ({@link QuorumAcquisition}) over three real servers, run as
 * {@code lock.InterleavingTest} runs the single lock's: the test thread alone delivers the events, in every order of
 * up to three of them, to one waiter that waits while a lease of the same client holds the lock. Its timers are
 * held ({@link HeldTimers}): a wait for the holder's TTL or after a split vote ends only by an event.
 *
 * <p>The events: a wake-up; the holder's release, which wakes the waiter as the client's release does; one server
 * paused (SIGSTOP) while the waiter tries, and kept paused through the next event (a try that needs its answer waits
 * for the command timeout); the waiter gives up; another client's token takes one server (overwriting whatever holds
 * it there, as after a restart of that server), which makes a split vote of a try that finds the paused server
 * silent. The waiter's caller releases a lease the moment it gets it, as {@code acquireAsync().thenAccept(...)}
 * would, after checking that a majority of the servers hold the lease's token (while a server is paused, the check
 * and the release wait for it to resume).
 *
 * <p>After each sequence the paused server resumes, the waiter gives up if it still waits and the holder releases
 * if it still holds; the test checks: the acquisition never failed (no move its
 * {@link dev.warden.internal.lease.Phase} refuses, no failure with a majority of servers up); a lease came only with
 * a majority holding its token; afterwards no server holds the lock (every grant of a give-up or a failed vote was
 * given back) and the watchdog keeps no lease of it. Each sequence runs twice: with each event's requests answered
 * before the next event, and with the next event racing them. The default run runs every order of up to two of the
 * five events (30 sequences, each twice, a few seconds); the full run every order of up to three (155 sequences,
 * about 30 s on two loaded cores).
 */
@Timeout(300)
class QuorumInterleavingTest {
    private static final String PREFIX = "qi:";
    private static final long LEASE_MILLIS = 30_000;
    /** The server that pauses. */
    private static final int PAUSED = 2;
    /** The server that another client's token takes. */
    private static final int SPLIT = 0;
    /** What SPLIT sets on its server: another client's hold. */
    private static final String ANOTHER_CLIENT = "999:another-client";
    private static final List<RedisServer> servers = new ArrayList<>();
    private static LockClient client;
    private static HeldTimers timers;

    enum Event {
        /** A wake-up: a timer, a release heard on some server. */
        WAKE,
        /** The holder releases on every server; the client's release wakes the waiter. */
        RELEASE,
        /** One server pauses and the waiter tries meanwhile; it resumes after the next event. */
        PAUSE,
        /** The waiter gives up: its caller cancels. */
        GIVE_UP,
        /** Another client's token holds one server. */
        SPLIT
    }

    @BeforeAll
    static void start() {
        for (int i = 0; i < 3; i++) {
            servers.add(RedisServer.start());
        }
        timers = new HeldTimers(Set.of(QuorumAcquisition.class));
        client = LockClient.create(LockConfig.builder()
                .quorum(servers.stream().map(RedisServer::uri).toArray(String[]::new)).keyPrefix(PREFIX)
                .commandTimeout(Duration.ofMillis(300)).scheduler(timers).build());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (timers != null) {
            timers.shutdownNow();
        }
        servers.forEach(RedisServer::close);
    }

    @Test
    void everyOrderOfUpToTwoEventsLeavesOneOutcomeAndNothingBehind() throws Exception {
        List<List<Event>> sequences = Orders.upToThree(Event.values()).stream().filter(s -> s.size() <= 2).toList();
        List<String> broken = Orders.broken(sequences, "qi2-",
                (sequence, name, settled) -> run(sequence, name, settled));
        assertThat(broken).as("sequences run: %d", sequences.size()).isEmpty();
    }

    @Test
    @Tag("full") // about 30 s on two loaded cores: in CI (mvn verify -Pfull), not the default run
    void everyOrderOfUpToThreeEventsLeavesOneOutcomeAndNothingBehind() throws Exception {
        List<List<Event>> sequences = Orders.upToThree(Event.values());
        List<String> broken = Orders.broken(sequences, "qi-",
                (sequence, name, settled) -> run(sequence, name, settled));
        assertThat(broken).as("sequences run: %d", sequences.size()).isEmpty();
    }

    @Test
    void aLeaseReleasedTheMomentItIsGrantedIsNotLeftWithTheWatchdog() throws Exception {
        // 15be4bd: the lease is watched before its caller can see it, so a caller that releases it at once takes
        // it off the watchdog instead of leaving it there until a tick finds it.
        assertThat(run(List.of(Event.RELEASE), "qi-release", true)).isNull();
        assertThat(run(List.of(Event.SPLIT, Event.PAUSE, Event.RELEASE), "qi-split", true)).isNull();
    }

    /**
     * Runs one sequence on a fresh lock; returns what went wrong, or null.
     *
     * @param settled whether each event's requests are answered before the next event, or the next event races them
     */
    private static String run(List<Event> sequence, String name, boolean settled) throws Exception {
        QuorumLock lock = (QuorumLock) client.lock(name);
        QuorumContext context = lock.context();
        Optional<Lease> held = lock.start(0, LEASE_MILLIS, true, Events.AcquireWatch.NONE).get(5, TimeUnit.SECONDS);
        if (held.isEmpty()) {
            return "the holder did not get the lock";
        }
        Scene scene = new Scene(lock, (QuorumLease) held.get());
        if (!eventually(() -> context.inFlight().count() == 0 && timers.pending() == 1)) {
            return scene.abort("the waiter never waited: " + timers.pending() + " timers, " + context.inFlight().count()
                    + " in flight, result " + scene.waiter.result);
        }
        for (int i = 0; i < sequence.size(); i++) {
            Event event = sequence.get(i);
            boolean wasPaused = scene.paused();
            try {
                scene.apply(event);
            } catch (Exception | AssertionError e) {
                return scene.abort(event + " threw " + e);
            }
            if (wasPaused && event != Event.PAUSE) {
                scene.resume();
            }
            if (settled && !context.inFlight().awaitNone(TimeUnit.SECONDS.toNanos(5))) {
                return scene.abort("requests still in flight after " + event);
            }
        }
        return scene.settle();
    }

    /** One lock: its holder, its waiter, and the servers' state the test changed. */
    private static final class Scene {
        private final QuorumLock lock;
        private final QuorumContext context;
        private final String key;
        private final QuorumLease holder;
        private final QuorumAcquisition waiter;
        private boolean holding = true;
        /** Whether the server {@link #PAUSED} is paused. Guarded by this. */
        private boolean paused;
        /** A lease the waiter got while a server was paused, to check and release when it resumes. Guarded by this. */
        private Lease unchecked;
        /** What went wrong when the waiter got its lease, if anything. */
        private volatile String granted;
        /** The release its caller sent the moment it got the lease. */
        private volatile CompletableFuture<Boolean> released;

        Scene(QuorumLock lock, QuorumLease holder) {
            this.lock = lock;
            this.context = lock.context();
            this.key = PREFIX + "{" + lock.name() + "}";
            this.holder = holder;
            this.waiter = new QuorumAcquisition(lock, lock.context(), TimeUnit.SECONDS.toNanos(20), LEASE_MILLIS, true,
                    Events.AcquireWatch.NONE);
            // The caller: checks the lease, then releases it at once (on the thread that completes the result).
            waiter.result.thenAccept(lease -> lease.ifPresent(this::got));
            waiter.start();
        }

        /**
         * The caller got its lease: checks that a majority of the servers hold its token, then releases it. While a
         * server is paused (it cannot be asked) both wait for it to resume.
         */
        private synchronized void got(Lease lease) {
            if (paused) {
                unchecked = lease;
                return;
            }
            int holders = 0;
            for (RedisServer server : servers) {
                if (server.call("GET", key) instanceof String value && value.endsWith(":" + waiter.token())) {
                    holders++;
                }
            }
            if (holders < context.quorum().majority()) {
                granted = "a lease while " + holders + " servers hold its token";
            }
            released = ((QuorumLease) lease).releaseRequest();
        }

        void apply(Event event) throws Exception {
            switch (event) {
                case WAKE -> waiter.wake();
                case RELEASE -> {
                    if (holding) {
                        holding = false;
                        release(holder);
                    }
                }
                case PAUSE -> {
                    synchronized (this) {
                        if (!paused) {
                            paused = true;
                            servers.get(PAUSED).pause();
                        }
                    }
                    waiter.wake();
                }
                case GIVE_UP -> waiter.result.cancel(false);
                // Another client takes the server, as it could: over the holder's hold (the holder's release there
                // then fails), but never over a grant the waiter already has there, which no client could take.
                case SPLIT -> servers.get(SPLIT).call("EVAL", "local v = redis.call('GET', KEYS[1]) "
                        + "if v and string.sub(v, -#ARGV[2] - 1) == ':' .. ARGV[2] then return 0 end "
                        + "redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3]) return 1", "1", key, ANOTHER_CLIENT,
                        waiter.token(), Long.toString(LEASE_MILLIS));
            }
        }

        /**
         * Releases the holder. With one server paused and another taken by another client's token, no majority can
         * confirm the release, which then fails ({@link LockConnectionException}): the paused server runs it when
         * it resumes.
         */
        private void release(QuorumLease lease) throws Exception {
            try {
                lease.releaseRequest().get(5, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof LockConnectionException)) {
                    throw e;
                }
            }
        }

        void resume() {
            Lease lease;
            synchronized (this) {
                if (!paused) {
                    return;
                }
                servers.get(PAUSED).resume();
                paused = false;
                lease = unchecked;
                unchecked = null;
            }
            if (lease != null) {
                got(lease);
            }
        }

        synchronized boolean paused() {
            return paused;
        }

        /** Ends the scene early, leaving its lock to expire: returns {@code problem}. */
        String abort(String problem) {
            resume();
            waiter.result.cancel(false);
            timers.drop();
            return problem;
        }

        /** Ends the scene and checks what it left; returns what went wrong, or null. */
        String settle() throws Exception {
            resume();
            waiter.result.cancel(false);
            if (holding) {
                holding = false;
                release(holder);
            }
            // Only another client's hold that SPLIT set: a lease the waiter got at this moment holds the key too,
            // and its caller may be counting its holders (an unconditional DEL made it see one server too few).
            servers.get(SPLIT).call("EVAL", "if redis.call('GET', KEYS[1]) == ARGV[1] then "
                    + "return redis.call('DEL', KEYS[1]) end return 0", "1", key, ANOTHER_CLIENT);
            if (!context.inFlight().awaitNone(TimeUnit.SECONDS.toNanos(5))) {
                return "requests still in flight";
            }
            timers.drop();
            try {
                waiter.result.join();
            } catch (CancellationException e) {
                // It gave up.
            } catch (CompletionException e) {
                return "the acquisition failed: " + e.getCause();
            }
            if (granted != null) {
                return granted;
            }
            CompletableFuture<Boolean> release = released;
            if (release != null) {
                try {
                    release.get(5, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    return "the waiter's lease could not be released: " + e.getCause();
                }
            }
            for (int i = 0; i < servers.size(); i++) {
                RedisServer server = servers.get(i);
                if (!eventually(() -> !(server.call("GET", key) instanceof String value && value.contains(":")))) {
                    return "server " + i + " still holds the lock: " + server.call("GET", key) + " (holder "
                            + holder.token() + ", waiter " + waiter.token() + ", waiter's result " + waiter.result
                            + ", its lease released " + released + ")";
                }
            }
            // Released, lost and abandoned quorum leases all leave the watchdog at once.
            List<QuorumLease> kept = context.watchdog().leases().stream()
                    .filter(lease -> lease.keys().equals(lock.keys())).toList();
            if (!kept.isEmpty()) {
                return "the watchdog still keeps a lease of the lock: " + kept;
            }
            return null;
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
