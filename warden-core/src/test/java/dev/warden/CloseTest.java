package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link LockClient#close()} with acquisitions, grants and releases in flight. */
class CloseTest extends RedisTestSupport {
    private static final String[] NAMES = {"close-a", "close-b", "close-c"};
    private static final int ROUNDS = 80;

    @Test
    void closeRacingHundredsOfAcquisitionsLeavesNoLockHeld() throws Exception {
        List<String> left = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            server.call("FLUSHALL");
            LockClient client = LockClient.create(LockConfig.builder().redisUri(server.uri()).keyPrefix("test:")
                    .commandTimeout(Duration.ofSeconds(2)).build());
            CountDownLatch started = new CountDownLatch(16);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                Thread thread = new Thread(() -> {
                    started.countDown();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < 10_000; i++) {
                        try {
                            DistributedLock lock = client.lock(NAMES[random.nextInt(NAMES.length)]);
                            Duration wait = random.nextBoolean() ? Duration.ZERO
                                    : Duration.ofMillis(1 + random.nextInt(40));
                            Optional<Lease> lease = lock.tryAcquire(wait, Duration.ofMinutes(5));
                            if (lease.isPresent() && random.nextBoolean()) {
                                lease.get().release();
                            }
                        } catch (LockException | IllegalStateException | InterruptedException e) {
                            return; // the client closed under this thread
                        }
                    }
                }, "close-race-" + t);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
            assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
            // The test's intent: the close comes at a random moment of the acquisitions.
            Thread.sleep(5 + ThreadLocalRandom.current().nextInt(60));
            client.close();
            for (Thread thread : threads) {
                thread.join(10_000);
                assertThat(thread.isAlive()).as("thread %s still running after close", thread.getName()).isFalse();
            }
            for (String name : NAMES) {
                Object value = server.call("GET", "test:{" + name + "}");
                if (value instanceof String text && text.contains(":")) {
                    left.add("round " + round + ": " + name + " held (" + value + ", pttl "
                            + server.call("PTTL", "test:{" + name + "}") + ")");
                }
            }
        }
        assertThat(left).isEmpty();
    }
}
