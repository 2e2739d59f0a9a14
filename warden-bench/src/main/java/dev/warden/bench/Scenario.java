package dev.warden.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Recorder;

/** The scenarios: each runs one contender for a fixed time and returns named figures. */
enum Scenario {
    /** One thread, lock and unlock of one key: ops/s and the pair's latency. */
    S1("1 thread, uncontended lock+unlock", 1, false),
    /** Sixteen threads, one key each: total ops/s. */
    S2("16 threads, own keys", 16, false),
    /** Eight threads on one key around a non-atomic increment: handoffs/s, waits, fairness, safety. */
    S3("8 threads, one key", 8, true, 0, false),
    /** Sixteen threads on one key with 1 ms of work inside: ideal about 1000 handoffs/s. */
    S4("16 threads, one key, 1 ms of work", 16, true, 1, false),
    /** S3 with one client instance per thread, as separate processes would have. */
    S3C("8 threads, one key, a client per thread", 8, true, 0, true),
    /** S4 with one client instance per thread. */
    S4C("16 threads, one key, 1 ms of work, a client per thread", 16, true, 1, true);

    final String description;
    final int threads;
    final boolean shared;
    final int workMillis;
    final boolean clientPerThread;

    Scenario(String description, int threads, boolean shared) {
        this(description, threads, shared, 0, false);
    }

    Scenario(String description, int threads, boolean shared, int workMillis, boolean clientPerThread) {
        this.description = description;
        this.threads = threads;
        this.shared = shared;
        this.workMillis = workMillis;
        this.clientPerThread = clientPerThread;
    }

    Map<String, Double> run(Contender contender, Duration duration, String keyPrefix) throws Exception {
        return run(t -> contender, duration, keyPrefix);
    }

    /** Runs with the contender of each thread given by {@code contenders} (one shared, or one per thread). */
    Map<String, Double> run(java.util.function.IntFunction<Contender> contenders, Duration duration, String keyPrefix)
            throws Exception {
        Recorder latencies = new Recorder(3);
        Recorder handoffs = new Recorder(3);
        AtomicLong releasingAt = new AtomicLong();
        long[] perThread = new long[threads];
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        int[] sequence = new int[1 << 20];
        AtomicInteger sequenceLength = new AtomicInteger();
        long[] counter = new long[1];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        long[] window = new long[2];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            String key = keyPrefix + (shared ? "shared" : "key-" + t);
            Contender contender = contenders.apply(t);
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                    long end = window[1];
                    while (System.nanoTime() - end < 0) {
                        long t0 = System.nanoTime();
                        Contender.Release release = contender.acquire(key);
                        long acquired = System.nanoTime();
                        if (shared) {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            // The handoff: from the previous holder's call to release to this holder's return.
                            long previous = releasingAt.get();
                            if (previous != 0 && acquired - previous > 0) {
                                handoffs.recordValue(acquired - previous);
                            }
                            // A deliberately non-atomic increment: only the lock keeps updates from being lost.
                            counter[0] = counter[0] + 1;
                            int at = sequenceLength.getAndIncrement();
                            if (at < sequence.length) {
                                sequence[at] = id;
                            }
                            if (workMillis > 0) {
                                // Simulated work, such as a call to the protected resource, while holding the lock.
                                Thread.sleep(workMillis);
                            }
                            inside.decrementAndGet();
                            releasingAt.set(System.nanoTime());
                            release.release();
                            latencies.recordValue(acquired - t0);
                        } else {
                            release.release();
                            latencies.recordValue(System.nanoTime() - t0);
                        }
                        perThread[id]++;
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-" + name() + "-" + t);
            workers.add(worker);
            worker.start();
        }
        window[0] = System.nanoTime();
        window[1] = window[0] + duration.toNanos();
        start.countDown();
        for (Thread worker : workers) {
            worker.join(duration.toMillis() + 120_000);
        }
        if (failure.get() != null) {
            throw new IllegalStateException(contenders.apply(0).name() + " failed in " + name(), failure.get());
        }
        double seconds = (System.nanoTime() - window[0]) / 1e9;
        var histogram = latencies.getIntervalHistogram();
        long total = 0;
        double squares = 0;
        for (long n : perThread) {
            total += n;
            squares += (double) n * n;
        }
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("ops/s", total / seconds);
        String latency = shared ? "wait" : "pair";
        figures.put(latency + " p50 us", histogram.getValueAtPercentile(50) / 1e3);
        figures.put(latency + " p99 us", histogram.getValueAtPercentile(99) / 1e3);
        figures.put(latency + " p99.9 us", histogram.getValueAtPercentile(99.9) / 1e3);
        if (shared) {
            var handoff = handoffs.getIntervalHistogram();
            figures.put("handoff p50 us", handoff.getValueAtPercentile(50) / 1e3);
            figures.put("handoff p99 us", handoff.getValueAtPercentile(99) / 1e3);
            figures.put("jain", total == 0 ? 0 : (double) total * total / (threads * squares));
            figures.put("longest streak", (double) longestStreak(sequence, Math.min(sequenceLength.get(),
                    sequence.length)));
            figures.put("lost updates", (double) (total - counter[0]));
            figures.put("overlaps", (double) overlaps.get());
        }
        return figures;
    }

    private static int longestStreak(int[] sequence, int length) {
        int longest = 0;
        int run = 0;
        for (int i = 0; i < length; i++) {
            run = i > 0 && sequence[i] == sequence[i - 1] ? run + 1 : 1;
            longest = Math.max(longest, run);
        }
        return longest;
    }
}
