package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Fair mode against a real Redis: grants in arrival order across clients, by the release itself, and what a waiter
 * that died or gave up costs the others. A dead waiter is simulated by the registration it leaves behind.
 */
class FairModeTest extends RedisTestSupport {

    /**
     * Subscribes to every channel of a lock and records, in order, the channel of each grant or wake-up published:
     * not a client's id on its own channel, which that client ignores, nor a message that tells a quiet waiter how
     * long a grant to the waiter ahead of it lasts
     * ({@code "+<token>:<ms>"}, {@code release-queued.lua}).
     */
    /** A message heard on a channel. */
    private record Heard(String channel, String message) {
    }

    private static final class ChannelRecorder implements AutoCloseable {
        /** The channels of the messages heard, but a client's own id on its own channel and those with "+". */
        final List<String> heard = new CopyOnWriteArrayList<>();
        /** The same messages, with what they said. */
        final List<Heard> messages = new CopyOnWriteArrayList<>();
        private final RedisClient raw = RedisClient.create(server.uri());
        private final StatefulRedisPubSubConnection<String, String> connection = raw.connectPubSub();

        ChannelRecorder(String name) {
            connection.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String pattern, String channel, String message) {
                    if (!channel.endsWith(":" + message) && !message.startsWith("+")) {
                        messages.add(new Heard(channel, message));
                        heard.add(channel);
                    }
                }
            });
            connection.sync().psubscribe("test:{" + name + "}:c*");
        }

        @Override
        public void close() {
            connection.close();
            raw.shutdown();
        }
    }

    private static boolean onSeveral(List<String> channels) {
        return channels.stream().distinct().count() >= 2;
    }

    /** The channels each message was heard on, by what it said. */
    private static Map<String, List<String>> byMessage(List<Heard> messages) {
        return messages.stream().collect(Collectors.groupingBy(Heard::message,
                Collectors.mapping(Heard::channel, Collectors.toList())));
    }

    private LockClient fairClient() {
        return client(b -> b.fair(true));
    }

    /** Waits until the lock has this many live fair registrations, so that arrival order is known. */
    private static void awaitWaiters(DistributedLock lock, int waiters) throws InterruptedException {
        assertThat(eventually(Duration.ofSeconds(5), () -> lock.inspect().waiters() == waiters))
                .as("waiters of " + lock.name()).isTrue();
    }

    /** Starts a wait of 20 s by {@code client} for the observed lock and waits until it is the queue's n-th. */
    private static CompletableFuture<Lease> queue(LockClient client, DistributedLock observer, int nth)
            throws InterruptedException {
        CompletableFuture<Lease> waiter = client.lock(observer.name()).acquireAsync(Duration.ofSeconds(20));
        awaitWaiters(observer, nth);
        return waiter;
    }

    /** Writes the queue entry a waiter leaves behind when its process dies, live for {@code liveMillis} more. */
    private static void registerGhost(String name, String token, long liveMillis, long grantMillis) {
        registerGhost(name, token, liveMillis, grantMillis, "ghost", 0);
    }

    /**
     * Writes a queue entry of a waiter of client {@code clientId} that no longer waits, at the queue's tail, or
     * with {@code arrival} (µs) where it is positive.
     */
    private static void registerGhost(String name, String token, long liveMillis, long grantMillis, String clientId,
                                      long arrival) {
        List<?> time = (List<?>) server.call("TIME");
        long nowMs = Long.parseLong(time.get(0).toString()) * 1000 + Long.parseLong(time.get(1).toString()) / 1000;
        long score = arrival > 0 ? arrival : nowMs * 1000;
        server.call("ZADD", "test:{" + name + "}:q", Long.toString(score), token);
        server.call("HSET", "test:{" + name + "}:r", token,
                (nowMs + liveMillis) + ":" + grantMillis + ":0:" + clientId);
        server.call("PEXPIRE", "test:{" + name + "}:q", "10000");
        server.call("PEXPIRE", "test:{" + name + "}:r", "10000");
    }

    /**
     * Queues one live waiter in another client behind whatever is queued, releases the holder, and returns how long
     * that waiter then took to get the lock.
     */
    private Duration handoff(String name, Lease holder) throws Exception {
        CompletableFuture<Lease> waiter = fairClient().lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitWaiters(fairClient().lock(name), 1);
        long t0 = System.nanoTime();
        holder.release();
        waiter.get(10, TimeUnit.SECONDS).release();
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    @Test
    void waitersOfDifferentClientsGetTheLockInArrivalOrder() throws Exception {
        String name = uniqueName();
        DistributedLock observer = fairClient().lock(name);
        Lease holder = fairClient().lock(name).tryAcquire().orElseThrow();
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiters.add(fairClient().lock(name).acquireAsync(Duration.ofSeconds(20)));
            awaitWaiters(observer, i + 1);
        }
        holder.release();
        for (int i = 0; i < 3; i++) {
            Lease lease = waiters.get(i).get(10, TimeUnit.SECONDS);
            for (int j = i + 1; j < 3; j++) {
                assertThat(waiters.get(j)).as("waiter %d while %d holds", j, i).isNotDone();
            }
            lease.release();
        }
    }

    @Test
    void aGrantReachesAWaiterOfAnotherClientWithoutAFurtherRequest() throws Exception {
        String name = uniqueName();
        Lease holder = fairClient().lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Lease> waiter = fairClient().lock(name).acquireAsync(Duration.ofSeconds(20));
        // Registered quietly: the waiter's try was answered, and it sends nothing more until the grant, so the only
        // script is the release.
        awaitWaiting(name, 1);
        server.call("CONFIG", "RESETSTAT");
        holder.release();
        Lease lease = waiter.get(5, TimeUnit.SECONDS);
        assertThat(scriptCalls()).isEqualTo(1);
        assertThat(calls("publish")).isEqualTo(1);
        assertThat(lease.fencingToken()).isGreaterThan(holder.fencingToken());
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.release()).isTrue();
    }

    @Test
    void aGrantIsPublishedOnlyToTheClientItNames() throws Exception {
        String name = uniqueName();
        DistributedLock observer = fairClient().lock(name);
        try (ChannelRecorder channels = new ChannelRecorder(name)) {
            List<String> heard = channels.heard;
            Lease holder = fairClient().lock(name).tryAcquire().orElseThrow();
            CompletableFuture<Lease> first = fairClient().lock(name).acquireAsync(Duration.ofSeconds(20));
            awaitWaiters(observer, 1);
            CompletableFuture<Lease> second = fairClient().lock(name).acquireAsync(Duration.ofSeconds(20));
            awaitWaiters(observer, 2);
            holder.release();
            first.get(5, TimeUnit.SECONDS).release();
            second.get(5, TimeUnit.SECONDS).release();
            assertThat(eventually(Duration.ofSeconds(5), () -> heard.size() == 2)).as("grants heard: %s", heard)
                    .isTrue();
            // One message per grant, each on the channel of the granted waiter's client, none on the lock's channel.
            assertThat(heard).allMatch(channel -> channel.startsWith("test:{" + name + "}:c:"));
            assertThat(heard.get(0)).isNotEqualTo(heard.get(1));
        }
    }

    @Test
    void forceReleaseWakesEachWaitingClientOnItsOwnChannel() throws Exception {
        String name = uniqueName();
        DistributedLock observer = fairClient().lock(name);
        try (ChannelRecorder channels = new ChannelRecorder(name)) {
            Lease holder = fairClient().lock(name).tryAcquire().orElseThrow();
            LockClient waiting = fairClient();
            CompletableFuture<Lease> first = waiting.lock(name).acquireAsync(Duration.ofSeconds(20));
            awaitWaiters(observer, 1);
            CompletableFuture<Lease> second = waiting.lock(name).acquireAsync(Duration.ofSeconds(20));
            CompletableFuture<Lease> other = fairClient().lock(name).acquireAsync(Duration.ofSeconds(20));
            awaitWaiters(observer, 3);
            assertThat(observer.forceRelease()).hasValue(holder.fencingToken());
            // The forced release says the same thing (its client's id) on the channel of each client with a
            // waiter. A waiter's try that finds the lock free with another client's quiet waiter first also
            // publishes there, its own client's id, to learn whether anyone listens: that is not the release's.
            assertThat(eventually(Duration.ofSeconds(5), () -> byMessage(channels.messages).values().stream()
                    .anyMatch(FairModeTest::onSeveral))).as("wake-ups heard: %s", channels.messages)
                    .isTrue();
            first.get(5, TimeUnit.SECONDS).release();
            second.get(5, TimeUnit.SECONDS).release();
            other.get(5, TimeUnit.SECONDS).release();
            List<String> wokenOn = byMessage(channels.messages).values().stream()
                    .filter(FairModeTest::onSeveral).findFirst().orElseThrow();
            // One wake-up per waiting client, not per waiter, and none on the lock's own channel.
            assertThat(wokenOn).hasSize(2).allMatch(channel -> channel.startsWith("test:{" + name + "}:c:"))
                    .doesNotHaveDuplicates();
            assertThat(holder.release()).isFalse();
        }
    }

    @Test
    void aTryNeverTakesAFreeLockThatALiveWaiterIsQueuedFor() throws Exception {
        String name = uniqueName();
        registerGhost(name, "ghost", 1500, 5000);
        DistributedLock lock = fairClient().lock(name);
        assertThat(lock.tryAcquire()).isEmpty();
        assertThat(lock.inspect().waiters()).isEqualTo(1);
        // Once the registration has run out, the lock is free for anyone again.
        assertThat(eventually(Duration.ofSeconds(6), () -> lock.tryAcquire().map(Lease::release).orElse(false)))
                .isTrue();
    }

    @Test
    void aGrantToAWaiterThatDiedHoldsTheLockOnlyForItsGrantWindow() throws Exception {
        String name = uniqueName();
        Lease holder = fairClient().lock(name).tryAcquire().orElseThrow();
        registerGhost(name, "ghost", 3000, 2000);
        CompletableFuture<Lease> waiter = fairClient().lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitWaiters(fairClient().lock(name), 2);
        long t0 = System.nanoTime();
        holder.release();
        // The test's intent: a second into the ghost's 2 s, the waiter must still wait.
        Thread.sleep(1000);
        assertThat(waiter).as("the ghost holds the lock for its 2 s").isNotDone();
        Lease lease = waiter.get(10, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(Duration.ofMillis(1900), Duration.ofSeconds(6));
        lease.release();
    }

    @Test
    void releaseSkipsAWaiterWhoseRegistrationRanOut() throws Exception {
        String name = uniqueName();
        Lease holder = fairClient().lock(name).tryAcquire().orElseThrow();
        registerGhost(name, "ghost", -1, 5000);
        assertThat(handoff(name, holder)).isLessThan(Duration.ofMillis(900));
    }

    @Test
    void aWaiterThatGivesUpLeavesTheQueueSoTheNextIsNotHeldUp() throws Exception {
        String name = uniqueName();
        Lease holder = fairClient().lock(name).tryAcquire().orElseThrow();
        assertThat(fairClient().lock(name).tryAcquire(Duration.ofMillis(300))).isEmpty();
        // It leaves at once, not when its registration would have run out (3 s).
        DistributedLock observer = fairClient().lock(name);
        assertThat(eventually(Duration.ofSeconds(1), () -> observer.inspect().waiters() == 0))
                .as("waiters after giving up").isTrue();
        // Had the first waiter stayed registered, the grant would have gone to it and held the lock for 5 s.
        assertThat(handoff(name, holder)).isLessThan(Duration.ofMillis(900));
    }

    @Test
    void aShortGrantIsExtendedToTheWholeLeaseByTheWatchdog() throws Exception {
        String name = uniqueName();
        Lease holder = fairClient().lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Lease> waiter = fairClient().lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitWaiters(fairClient().lock(name), 1);
        holder.release();
        Lease lease = waiter.get(5, TimeUnit.SECONDS);
        long granted = (Long) server.call("PTTL", "test:{" + name + "}");
        assertThat(granted).isBetween(1L, 5000L);
        assertThat(eventually(Duration.ofSeconds(5), () -> (Long) server.call("PTTL", "test:{" + name + "}") > 20_000))
                .isTrue();
        // The local deadline moves when the client reads the renewal's reply, just after Redis has run it.
        assertThat(eventually(Duration.ofSeconds(2), () -> lease.remaining().compareTo(Duration.ofSeconds(20)) > 0))
                .as("remaining %s", lease.remaining()).isTrue();
        assertThat(lease.release()).isTrue();
    }

    /**
     * Runs {@code threadsPerClient} threads in each client, each taking the lock {@code rounds} times, all queued
     * behind {@code holder} before the first turn; runs {@code beforeFirstTurn}, releases the holder, and returns
     * which thread took each turn, after checking that every turn was taken and none overlapped.
     */
    private static int[] takeTurns(String name, Lease holder, List<LockClient> clients, int threadsPerClient,
                                   int rounds, Runnable beforeFirstTurn) throws InterruptedException {
        int threads = clients.size() * threadsPerClient;
        int[] sequence = new int[threads * rounds];
        AtomicInteger at = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int c = 0; c < clients.size(); c++) {
            LockClient client = clients.get(c);
            for (int t = 0; t < threadsPerClient; t++) {
                int id = c * threadsPerClient + t;
                Thread worker = new Thread(() -> {
                    try {
                        for (int i = 0; i < rounds; i++) {
                            try (Lease lease = client.lock(name).tryAcquire(Duration.ofSeconds(20)).orElseThrow()) {
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                sequence[at.getAndIncrement()] = id;
                                inside.decrementAndGet();
                            }
                        }
                    } catch (Exception e) {
                        failures.incrementAndGet();
                    }
                });
                workers.add(worker);
                worker.start();
            }
        }
        awaitWaiters(clients.get(0).lock(name), threads);
        beforeFirstTurn.run();
        holder.release();
        for (Thread worker : workers) {
            worker.join(60_000);
        }
        assertThat(failures.get()).isZero();
        assertThat(overlaps.get()).isZero();
        assertThat(at.get()).isEqualTo(threads * rounds);
        return sequence;
    }

    @Test
    void threadsOfSeveralClientsTakeStrictTurns() throws Exception {
        String name = uniqueName();
        int threadsPerClient = 2;
        List<LockClient> clients = List.of(fairClient(), fairClient(), fairClient());
        // Every worker queues behind this holder before the first turn, so no worker can start turns ahead of one
        // that was slow to start (a slow start once left one thread three turns alone at the end).
        Lease holder = fairClient().lock(name).tryAcquire().orElseThrow();
        int[] sequence = takeTurns(name, holder, clients, threadsPerClient, 30, () -> { });
        // Each thread that releases queues again behind the others, until threads begin to finish their rounds. A
        // release that finds nobody queued frees the lock, and the releasing thread's next try takes it again: on two
        // busy cores the other threads are sometimes all late to send their next try (a trace of the server's
        // commands in such a run of the default mode, which queues the same way, showed every grant going to the
        // oldest registration and every double turn coming from an empty queue), so a run of two turns is no sign of
        // unfairness; a herd gives runs of twenty and more.
        int longest = 0;
        int run = 0;
        for (int i = 0; i < sequence.length - clients.size() * threadsPerClient; i++) {
            run = i > 0 && sequence[i] == sequence[i - 1] ? run + 1 : 1;
            longest = Math.max(longest, run);
        }
        assertThat(longest).as("longest run of one thread: %s", java.util.Arrays.toString(sequence))
                .isLessThanOrEqualTo(2);
    }

    @Test
    void threadsOfOneClientTakingTurnsAreRegisteredByEachOthersReleases() throws Exception {
        String name = uniqueName();
        int threads = 4;
        int rounds = 100;
        LockClient client = fairClient();
        Lease holder = client.lock(name).tryAcquire().orElseThrow();
        takeTurns(name, holder, List.of(client), threads, rounds, () -> server.call("CONFIG", "RESETSTAT"));
        // A thread that queues again while another thread of its client holds the lock (or is releasing it) is
        // registered by that thread's release, or by the script that follows a local handover, in the same script:
        // each turn takes one such script, and a waiter's own try only where its hold-back ran out first (about 1.1
        // to 1.6 scripts per turn here), where registering on its own would take two. (The order of turns is
        // threadsOfSeveralClientsTakeStrictTurns's subject: in a tight loop on a loaded machine, a thread that is
        // slow to come back loses its place, whichever way it registers.)
        assertThat(scriptCalls()).as("scripts for %d turns", threads * rounds).isLessThan(threads * rounds * 7 / 4);
    }

    @Test
    void aWaiterHeldBackForAHolderOfItsOwnClientStaysAheadOfLaterClients() throws Exception {
        String name = uniqueName();
        LockClient client = fairClient();
        DistributedLock observer = fairClient().lock(name);
        Lease first = client.lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Lease> second = client.lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitWaiters(observer, 1);
        first.release();
        Lease holder = second.get(5, TimeUnit.SECONDS);
        // Held back for the holder's release, but registered on its own soon after, since the holder keeps working.
        CompletableFuture<Lease> sameClient = client.lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitWaiters(observer, 1);
        CompletableFuture<Lease> otherClient = fairClient().lock(name).acquireAsync(Duration.ofSeconds(20));
        awaitWaiters(observer, 2);
        holder.release();
        Lease next = sameClient.get(5, TimeUnit.SECONDS);
        assertThat(otherClient).isNotDone();
        next.release();
        otherClient.get(5, TimeUnit.SECONDS).release();
    }

    @Test
    void aWaiterOfTheHoldingClientThatHeadsTheQueueTakesTheLockOverWithoutARequestAndNobodyIsPassedOver()
            throws Exception {
        // The handover needs the waiter idle when the holder releases; a try of its own in flight just then (its
        // first try after subscribing, under load) sends the release to Redis instead, which is correct but not
        // what this test is about. Each round checks the order; one of three must also show the handover.
        boolean handedOver = false;
        for (int round = 0; round < 3 && !handedOver; round++) {
            handedOver = queueOfTwoClients();
        }
        assertThat(handedOver).as("a local handover in one of three rounds").isTrue();
    }

    /** @return whether the second waiter took the lock over locally; the order is checked either way */
    private boolean queueOfTwoClients() throws Exception {
        String name = uniqueName();
        String key = "test:{" + name + "}";
        LockClient a = fairClient();
        LockClient b = fairClient();
        DistributedLock observer = fairClient().lock(name);
        Lease holder = a.lock(name).tryAcquire().orElseThrow();
        // Queue: a1, a2 (client a), b1 (client b), a3 (client a); each registered before the next arrives.
        CompletableFuture<Lease> a1 = queue(a, observer, 1);
        CompletableFuture<Lease> a2 = queue(a, observer, 2);
        CompletableFuture<Lease> b1 = queue(b, observer, 3);
        CompletableFuture<Lease> a3 = queue(a, observer, 4);
        holder.release();
        Lease first = a1.get(5, TimeUnit.SECONDS);
        Object granted = server.call("GET", key);
        // The grant named a2 as the next in the queue, and a2 is of the same client: it takes the lock over with the
        // key unchanged, and only its registration leaves the queue.
        assertThat(first.release()).isTrue();
        Lease second = a2.get(5, TimeUnit.SECONDS);
        boolean handedOver = granted.equals(server.call("GET", key));
        assertThat(eventually(Duration.ofSeconds(5), () -> observer.inspect().waiters() == 2)).isTrue();
        assertThat(b1).isNotDone();
        assertThat(a3).isNotDone();
        // b1 is next in Redis's queue, so a2's release goes through Redis and does not pass a3 ahead of it.
        long secondFence = second.fencingToken();
        assertThat(secondFence).isGreaterThan(first.fencingToken());
        assertThat(second.release()).isTrue();
        Lease third = b1.get(5, TimeUnit.SECONDS);
        assertThat(a3).isNotDone();
        assertThat(third.fencingToken()).isGreaterThan(secondFence);
        assertThat(third.release()).isTrue();
        Lease fourth = a3.get(5, TimeUnit.SECONDS);
        assertThat(fourth.release()).isTrue();
        assertThat(observer.inspect().waiters()).isZero();
        assertThat(observer.isLocked()).isFalse();
        return handedOver;
    }

    @Test
    void aLocalHandoverAfterRedisLostTheLockReleasesFalseAndBothLeasesAreLost() throws Exception {
        String name = uniqueName();
        String key = "test:{" + name + "}";
        LockClient client = fairClient();
        DistributedLock observer = fairClient().lock(name);
        Lease holder = client.lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Lease> first = queue(client, observer, 1);
        CompletableFuture<Lease> second = queue(client, observer, 2);
        holder.release();
        Lease granted = first.get(5, TimeUnit.SECONDS);
        AtomicInteger lost = new AtomicInteger();
        granted.onLost(lost::incrementAndGet);
        // Redis lost the key and another client took the lock; the grant named the second waiter as next, so it
        // takes the lock over before Redis is asked.
        server.call("SET", key, "7:intruder", "PX", "30000");
        assertThat(granted.release()).isFalse();
        // onLost runs on the client's callback thread.
        assertThat(eventually(Duration.ofSeconds(5), () -> lost.get() == 1)).isTrue();
        // The second waiter took the lock over and lost it with the first; or, if its own try was in flight just
        // then, the release went to Redis, found the intruder, and the waiter waits on. It never holds the lock.
        try {
            assertThat(second.get(5, TimeUnit.SECONDS).isHeld()).isFalse();
        } catch (java.util.concurrent.TimeoutException e) {
            second.cancel(true);
        }
        assertThat(server.call("GET", key)).isEqualTo("7:intruder");
    }

    @Test
    void aGrantToATokenOfTheReleasingClientThatNoLongerWaitsIsPassedOn() throws Exception {
        String name = uniqueName();
        LockClient client = fairClient();
        Lease holder = client.lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Lease> waiter = client.lock(name).acquireAsync(Duration.ofSeconds(20));
        DistributedLock observer = fairClient().lock(name);
        awaitWaiters(observer, 1);
        // The client's id, from the grant channel its waiter subscribes to (once registered).
        String prefix = "test:{" + name + "}:c:";
        assertThat(eventually(Duration.ofSeconds(5),
                () -> ((List<?>) server.call("PUBSUB", "CHANNELS", prefix + "*")).size() == 1)).isTrue();
        List<?> channels = (List<?>) server.call("PUBSUB", "CHANNELS", prefix + "*");
        String clientId = channels.get(0).toString().substring(prefix.length());
        // Ahead of the waiter, a registration of this client whose waiter is gone (a local handover whose removal
        // of it failed leaves one): the release grants the lock to it.
        registerGhost(name, "gone", 3000, 5000, clientId, 1);
        long t0 = System.nanoTime();
        holder.release();
        Lease lease = waiter.get(5, TimeUnit.SECONDS);
        // Not after the ghost's 5 s grant ran out: the client saw that no waiter of its own had the token.
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
        assertThat(lease.isHeld()).isTrue();
        assertThat(observer.inspect().waiters()).isZero();
        assertThat(lease.release()).isTrue();
    }

    @Test
    void fairModeRefusesAQuorumAndReplicaAcknowledgements() {
        assertThatThrownBy(() -> LockConfig.builder().quorum("redis://127.0.0.1:1", "redis://127.0.0.1:2",
                "redis://127.0.0.1:3").fair(true).build())
                .isInstanceOf(IllegalStateException.class).hasMessage("fair mode is not supported with a quorum");
        assertThatThrownBy(() -> LockConfig.builder().redisUri(server.uri()).replicaAcks(1, Duration.ofMillis(100))
                .fair(true).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("fair mode is not supported with replicaAcks: 1");
        assertThatThrownBy(() -> fairClient().lock("x").withReplicaAcks(1, Duration.ofMillis(100)))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(fairClient().lock(uniqueName()).tryAcquire().map(Lease::release)).isEqualTo(Optional.of(true));
    }
}
