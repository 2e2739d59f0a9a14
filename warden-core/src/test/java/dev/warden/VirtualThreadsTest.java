package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Virtual threads (JDK 21 and later; CI runs the core suite on JDK 25 as well as on 17, the compile target): many
 * virtual threads blocked in {@link DistributedLock#acquire()} neither pin their carriers nor cost a platform thread
 * each. On JDK 17 there are no virtual threads, and the test is skipped.
 */
@Timeout(180)
class VirtualThreadsTest extends RedisTestSupport {
    private static final int LOCKS = 10;
    private static final int WAITERS_PER_LOCK = 1_000;

    @Test
    void tenThousandVirtualThreadsWaitInAcquireWithoutPinningOrAPlatformThreadEach() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21 or later");
        LockClient holder = client();
        LockClient waiters = client();
        List<Lease> held = new ArrayList<>();
        for (int i = 0; i < LOCKS; i++) {
            held.add(holder.lock("vt-" + i).acquire());
        }
        Path jfr = Files.createTempFile("virtual-threads", ".jfr");
        AtomicInteger acquired = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger[] inside = new AtomicInteger[LOCKS];
        for (int i = 0; i < LOCKS; i++) {
            inside[i] = new AtomicInteger();
        }
        try (Recording recording = new Recording()) {
            recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            int platformBefore = platformThreads();
            // Executors.newVirtualThreadPerTaskExecutor() is JDK 21 API; the tests compile for 17.
            ExecutorService virtual = (ExecutorService) Executors.class
                    .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < LOCKS * WAITERS_PER_LOCK; i++) {
                int lock = i % LOCKS;
                futures.add(virtual.submit(() -> {
                    try (Lease lease = waiters.lock("vt-" + lock).acquire()) {
                        if (inside[lock].incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        acquired.incrementAndGet();
                        inside[lock].decrementAndGet();
                    }
                    return null;
                }));
            }
            // Every waiter registered in its lock's queue: all 10,000 are blocked in acquire().
            assertThat(eventually(Duration.ofSeconds(60), () -> queued() == LOCKS * WAITERS_PER_LOCK))
                    .as("waiters queued: %d", queued()).isTrue();
            int platformBlocked = platformThreads();
            assertThat(acquired).hasValue(0);
            // Carriers (one per core) and the client's own threads at most: no platform thread per waiter.
            assertThat(platformBlocked - platformBefore).as("platform threads before %d, with the waiters blocked %d",
                    platformBefore, platformBlocked).isLessThan(32);

            for (Lease lease : held) {
                lease.release();
            }
            for (Future<?> future : futures) {
                future.get(120, TimeUnit.SECONDS);
            }
            virtual.shutdown();
            recording.stop();
            recording.dump(jfr);
        }
        assertThat(acquired).hasValue(LOCKS * WAITERS_PER_LOCK);
        assertThat(overlaps).hasValue(0);
        List<RecordedEvent> pinned = RecordingFile.readAllEvents(jfr).stream()
                .filter(event -> event.getEventType().getName().equals("jdk.VirtualThreadPinned")).toList();
        Files.deleteIfExists(jfr);
        assertThat(pinned).as("pinned: %s", pinned.isEmpty() ? "" : pinned.get(0)).isEmpty();
    }

    /** @return how many platform threads are alive: {@link Thread#getAllStackTraces()} has no virtual thread */
    private static int platformThreads() {
        return Thread.getAllStackTraces().size();
    }

    /** @return how many waiters the locks' queues hold */
    private static long queued() {
        long queued = 0;
        for (int i = 0; i < LOCKS; i++) {
            queued += (Long) server.call("ZCARD", "test:{vt-" + i + "}:q");
        }
        return queued;
    }
}
