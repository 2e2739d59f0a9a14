package dev.warden.cli;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * One process of {@code warden demo}: runs some of the contest's clients as threads, and prints one
 * {@code RESULT} line with its counts. Under the lock each client checks, against keys in Redis, that it is alone
 * ({@code INCR} of an "inside" counter must give 1) and that its fencing token exceeds the last one seen.
 */
@Command(name = "demo-worker", hidden = true, description = "One process of the demo (started by 'warden demo').")
final class DemoWorker implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Option(names = "--run", required = true)
    String run;

    @Option(names = "--clients", required = true)
    int clients;

    @Option(names = "--wait", required = true, converter = Durations.class)
    Duration wait;

    @Option(names = "--steady", defaultValue = "0s", converter = Durations.class)
    Duration steady;

    @Option(names = "--steady-threads", defaultValue = "2")
    int steadyThreads;

    @Spec
    CommandSpec spec;

    private final AtomicInteger winners = new AtomicInteger();
    private final AtomicInteger empty = new AtomicInteger();
    private final AtomicInteger timeouts = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicInteger fenceViolations = new AtomicInteger();
    private final AtomicInteger errors = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong firstMicros = new java.util.concurrent.atomic.AtomicLong(Long.MAX_VALUE);
    private final java.util.concurrent.atomic.AtomicLong lastMicros = new java.util.concurrent.atomic.AtomicLong();

    @Override
    public Integer call() throws InterruptedException, java.io.IOException {
        DemoKeys keys = new DemoKeys(common.prefix, run);
        java.util.Map.Entry<RedisURI, io.lettuce.core.ClientOptions> connection = common.plainConnection(common.redis);
        RedisClient dataClient = RedisClient.create(connection.getKey());
        dataClient.setOptions(connection.getValue());
        try (LockClient locks = LockClient.create(common.config(null).build());
             StatefulRedisConnection<String, String> data = dataClient.connect()) {
            DistributedLock lock = locks.lock(keys.lockName());
            RedisCommands<String, String> redis = data.sync();
            // Connected: tell the parent, and start only when it says GO, so all processes compete at once.
            PrintWriter out = spec.commandLine().getOut();
            out.println("READY");
            out.flush();
            java.io.BufferedReader input = new java.io.BufferedReader(new java.io.InputStreamReader(System.in,
                    java.nio.charset.StandardCharsets.UTF_8));
            String go = input.readLine();
            if (!"GO".equals(go)) {
                throw new IllegalStateException("the demo stopped before the contest started");
            }
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                Thread thread = new Thread(() -> compete(lock, redis, keys), "demo-client-" + i);
                threads.add(thread);
                thread.start();
            }
            for (Thread thread : threads) {
                thread.join();
            }
            // Wall-clock microseconds: every worker runs on this machine, so the parent can merge the spans.
            out.printf("RESULT winners=%d empty=%d timeouts=%d overlaps=%d fenceviolations=%d errors=%d first=%d "
                    + "last=%d%n", winners.get(), empty.get(), timeouts.get(), overlaps.get(), fenceViolations.get(),
                    errors.get(), firstMicros.get() == Long.MAX_VALUE ? 0 : firstMicros.get(), lastMicros.get());
            out.flush();
            if (!steady.isZero() && "STEADY".equals(input.readLine())) {
                handOff(locks.lock(keys.lockName() + ":steady"), out);
            }
        } finally {
            dataClient.shutdown();
        }
        return ExitCodes.OK;
    }

    /**
     * The steady state: a few threads take and release one lock as fast as they can for {@code --steady}, and each
     * hold is printed as {@code HOLD <acquired> <release started>} in {@code System.nanoTime}, for the parent to
     * merge across processes.
     */
    private void handOff(DistributedLock lock, PrintWriter out) throws InterruptedException {
        long end = System.nanoTime() + steady.toNanos();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < steadyThreads; i++) {
            Thread thread = new Thread(() -> {
                List<long[]> holds = new ArrayList<>();
                try {
                    while (System.nanoTime() - end < 0) {
                        Optional<Lease> acquired = lock.tryAcquire(Duration.ofNanos(Math.max(end - System.nanoTime(),
                                0)));
                        if (acquired.isEmpty()) {
                            break;
                        }
                        long acquiredAt = System.nanoTime();
                        long releasedAt = System.nanoTime();
                        acquired.get().release();
                        holds.add(new long[] {acquiredAt, releasedAt});
                    }
                } catch (LockException e) {
                    errors.incrementAndGet();
                    System.err.println("warden demo: " + e.getMessage());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                synchronized (out) {
                    for (long[] hold : holds) {
                        out.println("HOLD " + hold[0] + " " + hold[1]);
                    }
                }
            }, "demo-steady-" + i);
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        out.println("STEADY-DONE errors=" + errors.get());
        out.flush();
    }

    private void compete(DistributedLock lock, RedisCommands<String, String> redis, DemoKeys keys) {
        try {
            Optional<Lease> acquired = lock.tryAcquire(wait);
            if (acquired.isEmpty()) {
                timeouts.incrementAndGet();
            } else {
                try (Lease lease = acquired.get()) {
                    underLock(lease, redis, keys);
                }
            }
        } catch (LockException | io.lettuce.core.RedisException e) {
            errors.incrementAndGet();
            System.err.println("warden demo: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            errors.incrementAndGet();
        } finally {
            redis.incr(keys.done());
        }
    }

    private void underLock(Lease lease, RedisCommands<String, String> redis, DemoKeys keys) {
        long now = nowMicros();
        firstMicros.accumulateAndGet(now, Math::min);
        lastMicros.accumulateAndGet(now, Math::max);
        if (redis.incr(keys.inside()) != 1) {
            overlaps.incrementAndGet();
        }
        String last = redis.get(keys.lastFence());
        if (last != null && lease.fencingToken() <= Long.parseLong(last)) {
            fenceViolations.incrementAndGet();
        }
        redis.set(keys.lastFence(), Long.toString(lease.fencingToken()));
        redis.incr(keys.acquisitions());
        // Deliberately a read and a separate write: only the lock keeps two winners from taking the last prize.
        long left = Long.parseLong(redis.get(keys.prizes()));
        if (left > 0) {
            redis.set(keys.prizes(), Long.toString(left - 1));
            winners.incrementAndGet();
        } else {
            empty.incrementAndGet();
        }
        redis.decr(keys.inside());
    }

    private static long nowMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
}
