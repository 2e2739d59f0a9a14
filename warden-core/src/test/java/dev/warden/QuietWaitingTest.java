package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Waiting costs nothing while the lock is held: a waiter registers quietly once its client listens on its grant
 * channel, sends nothing more until its grant, the holder's TTL or the end of its wait, and a release skips it once
 * its client stops listening (its process died, or its pub/sub connection closed).
 */
@Timeout(120)
class QuietWaitingTest extends RedisTestSupport {
    @Test
    void waitersSendNothingWhileTheHolderKeepsTheLock() throws Exception {
        String name = uniqueName();
        String warm = uniqueName();
        LockClient holding = recorded(client());
        // Renewed by the watchdog: a 30 s lease, renewed after 10 s, so no renewal falls into the wait below.
        Lease holder = holding.lock(name).tryAcquire().orElseThrow();
        Lease warmHolder = holding.lock(warm).tryAcquire().orElseThrow();
        List<LockClient> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            LockClient waiter = recorded(client());
            // Each client opens its pub/sub connection once, at its first wait: not part of the wait counted here.
            assertThat(waiter.lock(warm).tryAcquire(Duration.ofMillis(100))).isEmpty();
            waiters.add(waiter);
        }
        warmHolder.release();
        // The warm-up's subscriptions end after their linger (2 s), before counting starts.
        await(() -> subscribed("test:{" + warm + "}:c:*").isEmpty(), Duration.ofSeconds(10),
                "the warm-up's subscriptions ended");
        List<Request> requests;
        long start;
        try (Monitor monitor = new Monitor()) {
            start = System.nanoTime();
            List<CompletableFuture<Optional<Lease>>> waits = new ArrayList<>();
            for (LockClient waiter : waiters) {
                waits.add(waiter.lock(name).tryAcquireAsync(Duration.ofSeconds(4)));
            }
            for (CompletableFuture<Optional<Lease>> wait : waits) {
                assertThat(wait.get(10, TimeUnit.SECONDS)).isEmpty();
            }
            // The requests that leave the queue go out as the waits end. The test's intent: a window in which they,
            // and any more that must not come, are counted (polling Redis here would be counted too).
            Thread.sleep(300);
            requests = monitor.finish();
        }
        List<Request> during = requests.stream().filter(r -> r.at() - start < TimeUnit.SECONDS.toNanos(4)).toList();
        List<Request> middle = during.stream().filter(r -> r.at() - start >= TimeUnit.SECONDS.toNanos(1)
                && r.at() - start <= TimeUnit.SECONDS.toNanos(3)).toList();
        List<Request> after = requests.stream().filter(r -> r.at() - start >= TimeUnit.SECONDS.toNanos(4)).toList();
        System.out.printf("5 waiters, 4 s: %d requests during the wait %s, %d in seconds 1 to 3, %d after it %s%n",
                during.size(), commands(during), middle.size(), after.size(), commands(after));
        assertThat(middle).as("requests in seconds 1 to 3 of the wait").hasSizeLessThanOrEqualTo(2);
        assertThat(during).as("requests during the 4 s").hasSizeLessThan(20);
        // Each waiter leaves with one request, no last try.
        assertThat(after).as("requests as the waits end").hasSizeLessThanOrEqualTo(5);
        assertThat(queueGone(name)).isTrue();
        holder.release();
    }

    /**
     * A waiter learns that its client is subscribed to its grant channel by counting the subscribers there, not by
     * a publication that its own client would receive and ignore: its quiet registration publishes nothing.
     */
    @Test
    void aWaiterRegistersQuietlyWithoutPublishingAnything() throws Exception {
        String name = uniqueName();
        Lease holder = client().lock(name).tryAcquire().orElseThrow();
        long published = calls("publish");
        long probed = calls("pubsub|numsub") + calls("pubsub");
        CompletableFuture<Optional<Lease>> wait = client().lock(name).tryAcquireAsync(Duration.ofSeconds(20));
        awaitWaiting(name, 1);
        assertThat(calls("publish")).as("PUBLISH calls while the waiter registered quietly").isEqualTo(published);
        // It learnt that its client listens by counting the subscribers (PUBSUB NUMSUB; "pubsub" on Redis 6.2).
        assertThat(calls("pubsub|numsub") + calls("pubsub")).as("PUBSUB NUMSUB calls").isGreaterThan(probed);
        holder.release();
        Lease granted = wait.get(10, TimeUnit.SECONDS).orElseThrow();
        // The release granted the lock to the waiter and told its client: the count does see a publication.
        assertThat(calls("publish")).as("PUBLISH calls after the grant").isGreaterThan(published);
        assertThat(granted.release()).isTrue();
    }

    @Test
    void aWaiterWhoseProcessWasKilledIsSkippedByTheNextGrant(@TempDir Path dir) throws Exception {
        String name = uniqueName();
        Lease holder = client().lock(name).tryAcquire().orElseThrow();
        String channels = "test:{" + name + "}:c:*";
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                WaiterProcess.class.getName(), server.uri(), name, "60")
                .redirectErrorStream(true).redirectOutput(dir.resolve("waiter.log").toFile()).start();
        try {
            assertThat(eventually(Duration.ofSeconds(60), () -> queued(name) == 1
                    && subscribed(channels).size() == 1)).as(log(dir)).isTrue();
            String childChannel = subscribed(channels).get(0);
            // A waiter of this process queues behind the child.
            CompletableFuture<Optional<Lease>> live = client().lock(name).tryAcquireAsync(Duration.ofSeconds(30));
            awaitWaiting(name, 2);
            child.destroyForcibly();
            assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
            // Redis closed the killed process's connections: nobody listens on its channel any more.
            assertThat(eventually(Duration.ofSeconds(2), () -> numsub(childChannel) == 0)).isTrue();
            long released = System.nanoTime();
            holder.release();
            Optional<Lease> lease = live.get(20, TimeUnit.SECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - released);
            System.out.println("the waiter behind a killed one got the lock " + took.toMillis() + " ms after the "
                    + "release");
            assertThat(lease).isPresent();
            // The release skipped the dead waiter and granted to the next one: no first lease of 5 s went to it.
            assertThat(took).isLessThan(Duration.ofSeconds(1));
            lease.get().release();
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void aKilledPubSubConnectionLosesNoGrant() throws Exception {
        String name = uniqueName();
        LockClient holding = client();
        LockClient waiting = client();
        for (boolean releaseAtOnce : new boolean[] {true, false}) {
            Lease holder = holding.lock(name).tryAcquire().orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = waiting.lock(name).tryAcquireAsync(Duration.ofSeconds(30));
            assertThat(eventually(Duration.ofSeconds(5), () -> quietRegistrations(name) == 1)).isTrue();
            assertThat((Long) server.call("CLIENT", "KILL", "TYPE", "pubsub")).isEqualTo(1L);
            if (!releaseAtOnce) {
                // Lettuce reconnects and subscribes again.
                assertThat(eventually(Duration.ofSeconds(5), () -> subscribed("test:{" + name + "}:c:*").size() == 1))
                        .isTrue();
            }
            long released = System.nanoTime();
            // At once, the release finds nobody listening and skips the waiter, which tries again when its client
            // has reconnected; later, it grants to the waiter.
            holder.release();
            Optional<Lease> lease = waiter.get(10, TimeUnit.SECONDS);
            assertThat(lease).as("release at once: " + releaseAtOnce).isPresent();
            assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(3));
            lease.get().release();
        }
        assertThat(eventually(Duration.ofSeconds(2), () -> queueGone(name))).isTrue();
    }

    /**
     * Quiet waiters whose holder's TTL runs out, while the holder's watchdog keeps renewing it, renew their
     * registrations together, at most 256 to a request: with a 2 s lease each of 300 waiters would try about three
     * times in 6 s on its own, 900 requests.
     */
    @Test
    void quietWaitersOfOneClientRenewTheirRegistrationsTogetherWhenTheHoldersTtlRunsOut() throws Exception {
        int count = 300;
        String name = uniqueName();
        String queue = "test:{" + name + "}:q";
        // Renewed by the watchdog every 2/3 s or so: the TTL a waiter sees runs out within 2 s.
        Lease holder = client(b -> b.defaultLease(Duration.ofSeconds(2))).lock(name).tryAcquire().orElseThrow();
        LockClient waiting = client();
        List<CompletableFuture<Optional<Lease>>> waits = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            waits.add(waiting.lock(name).tryAcquireAsync(Duration.ofSeconds(60)));
        }
        assertThat(eventually(Duration.ofSeconds(10), () -> quietRegistrations(name) == count)).isTrue();
        List<Request> requests;
        try (Monitor monitor = new Monitor()) {
            // The test's intent: what the waiters send in 6 s of the holder's renewals.
            Thread.sleep(6_000);
            requests = monitor.finish();
        }
        // The holder's renewals name the lock's key only; every waiter's request names the queue.
        List<Request> waiterRequests = requests.stream().filter(r -> r.line().contains(queue)).toList();
        // A refresh's arguments: three keys, four of its own, and four per waiter (counted where the script is sent
        // by its SHA: a script sent in full has quotes of its own).
        List<Integer> renewedPerRequest = waiterRequests.stream().filter(r -> r.command().equals("EVALSHA"))
                .map(r -> (int) (r.line().chars().filter(c -> c == '"').count() / 2 - 3 - 3 - 4) / 4).toList();
        System.out.printf("%d quiet waiters, 6 s of a renewed 2 s lease: %d requests of the waiters %s, waiters per "
                + "request %s%n", count, waiterRequests.size(), commands(waiterRequests), renewedPerRequest);
        assertThat(waiterRequests).as("requests of %d waiters in 6 s", count).hasSizeBetween(2, 16);
        assertThat(renewedPerRequest).allMatch(n -> n <= 256);
        assertThat(queued(name)).isEqualTo(count);
        assertThat(quietRegistrations(name)).isEqualTo(count);
        holder.release();
        // Still queued and live: each gets the lock in turn, and still holds it when it releases.
        List<CompletableFuture<Boolean>> released = waits.stream()
                .map(wait -> wait.thenCompose(lease -> lease.orElseThrow().releaseAsync())).toList();
        for (CompletableFuture<Boolean> release : released) {
            assertThat(release.get(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aWaiterOfAHeldLockIsRegisteredQuietlyUntilTheHoldersTtlHasRunOut() throws Exception {
        String name = uniqueName();
        Lease holder = client().lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(20)).orElseThrow();
        CompletableFuture<Optional<Lease>> waiter = client().lock(name).tryAcquireAsync(Duration.ofSeconds(60));
        assertThat(eventually(Duration.ofSeconds(5), () -> quietRegistrations(name) == 1)).isTrue();
        long left = registrationsLeftMillis(name).get(0);
        // The holder's TTL (20 s) plus the 3 s a registration lives without its client listening.
        assertThat(left).isBetween(20_000L, 23_000L);
        holder.release();
        waiter.get(10, TimeUnit.SECONDS).orElseThrow().release();
    }

    @Test
    void aWaiterGrantedAfterWaitingQuietlyLongerThanAGrantsLeaseHoldsItsLease() throws Exception {
        String name = uniqueName();
        Lease holder = client().lock(name).tryAcquire().orElseThrow();
        CompletableFuture<Lease> waiter = client().lock(name).acquireAsync(Duration.ofSeconds(30));
        assertThat(eventually(Duration.ofSeconds(5), () -> quietRegistrations(name) == 1)).isTrue();
        // The test's intent: longer than the 5 s a grant gives a renewed waiter until the watchdog renews it: a lease
        // counted from the waiter's only try would be over before the grant arrives.
        Thread.sleep(6_000);
        holder.release();
        Lease lease = waiter.get(10, TimeUnit.SECONDS);
        assertThat(lease.isHeld()).isTrue();
        // The test's intent: still held a second later, its lease renewed.
        Thread.sleep(1_000);
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.release()).isTrue();
    }

    @SuppressWarnings("unchecked")
    private static List<String> subscribed(String pattern) {
        return (List<String>) server.call("PUBSUB", "CHANNELS", pattern);
    }

    private static long numsub(String channel) {
        return (Long) ((List<?>) server.call("PUBSUB", "NUMSUB", channel)).get(1);
    }

    private static String log(Path dir) {
        try {
            return Files.readString(dir.resolve("waiter.log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static String commands(List<Request> requests) {
        return requests.stream().map(Request::command).toList().toString();
    }

    /** A request Redis received, when this process read it from MONITOR, its command and the whole line. */
    record Request(long at, String command, String line) {
    }

    /**
     * Records the requests clients send to Redis with MONITOR, leaving out the commands scripts run inside the server
     * (MONITOR shows them as {@code [0 lua]}).
     */
    private static final class Monitor implements AutoCloseable {
        private static final String END = "quiet-waiting-count-end";
        private static final Pattern COMMAND = Pattern.compile("\\] \"([^\"]*)\"");
        private final Socket socket;
        private final List<Request> requests = new CopyOnWriteArrayList<>();
        private final CountDownLatch ended = new CountDownLatch(1);

        Monitor() throws IOException {
            socket = new Socket(server.host(), server.port());
            socket.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            BufferedReader lines = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.UTF_8));
            if (!"+OK".equals(lines.readLine())) {
                throw new IOException("MONITOR refused");
            }
            Thread reader = new Thread(() -> {
                try {
                    String line;
                    while ((line = lines.readLine()) != null) {
                        long at = System.nanoTime();
                        if (line.contains(END)) {
                            ended.countDown();
                        } else if (ended.getCount() > 0 && !line.contains(" lua]")) {
                            Matcher command = COMMAND.matcher(line);
                            requests.add(new Request(at, command.find() ? command.group(1).toUpperCase() : line,
                                    line));
                        }
                    }
                } catch (IOException e) {
                    // closed: counting is over
                }
            }, "quiet-waiting-monitor");
            reader.setDaemon(true);
            reader.start();
        }

        /** Ends recording once MONITOR has shown a marker sent after everything counted. */
        List<Request> finish() throws InterruptedException {
            server.call("ECHO", END);
            assertThat(ended.await(30, TimeUnit.SECONDS)).isTrue();
            return List.copyOf(requests);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
