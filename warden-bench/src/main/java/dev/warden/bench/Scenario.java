package dev.warden.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Recorder;

/** The scenarios: each runs one contender for a fixed time and returns named figures. */
enum Scenario {
    /** One thread, lock and unlock of one key: ops/s and the pair's latency. */
    S1("1 thread, uncontended lock+unlock", 1, false),
    /** Sixteen threads, one key each: total ops/s. */
    S2("16 threads, own keys", 16, false),
    /** Eight threads on one key around a non-atomic increment: handoffs/s, waits, fairness, safety. */
    S3("8 threads, one key", 8, true);

    final String description;
    final int threads;
    final boolean shared;

    Scenario(String description, int threads, boolean shared) {
        this.description = description;
        this.threads = threads;
        this.shared = shared;
    }

    Map<String, Double> run(Contender contender, Duration duration, String keyPrefix) throws Exception {
        Recorder latencies = new Recorder(3);
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
                            // A deliberately non-atomic increment: only the lock keeps updates from being lost.
                            counter[0] = counter[0] + 1;
                            int at = sequenceLength.getAndIncrement();
                            if (at < sequence.length) {
                                sequence[at] = id;
                            }
                            inside.decrementAndGet();
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
            throw new IllegalStateException(contender.name() + " failed in " + name(), failure.get());
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
