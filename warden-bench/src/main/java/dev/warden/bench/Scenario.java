package dev.warden.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
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
    S4C("16 threads, one key, 1 ms of work, a client per thread", 16, true, 1, true),
    /**
     * Many clients: {@value #S9_CLIENTS} client instances (connections of their own, as so many service instances
     * would have), a thread each, on {@value #S9_NAMES} names, thread {@code t} on name {@code t % 8}: handoffs/s,
     * Jain's index over the clients, waits, and safety per name. {@link #S9_8} and {@link #S9_24} are S9 at 8 and
     * 24 clients; run with it, they draw S9's curve ({@code S9-curve.svg}).
     */
    S9("64 clients, 8 names", Scenario.S9_CLIENTS, true, 0, true, Kind.LOCK, 0, Scenario.S9_NAMES),
    /**
     * S9 at 12.5 % of its size: {@value #S9_PER_NAME} clients on one name. Of the sizes that keep S9's
     * {@value #S9_PER_NAME} clients per name (so that only the clients and names grow, not the contention per
     * name), the nearest to the 10 % that issue #27 asks for. Runs only when named, as S9. With one name it is
     * S3C's load, and reports the longest streak of one client as S3C does.
     */
    S9_8("8 clients, 1 name", Scenario.S9_PER_NAME, true, 0, true, Kind.LOCK, 0, 1),
    /**
     * S9 at 37.5 % of its size: 24 clients on 3 names, {@value #S9_PER_NAME} per name; the nearest such size to
     * the 30 % that issue #27 asks for. Runs only when named, as S9.
     */
    S9_24("24 clients, 3 names", 3 * Scenario.S9_PER_NAME, true, 0, true, Kind.LOCK, 0, 3),
    /**
     * A read-heavy read-write lock: eight reader and {@value #WRITERS} writer threads of one client on one name, 100
     * us of work under either half. Acquisitions/s, readers' and writers' waits apart, and safety: a writer overlaps
     * no holder, and readers see no write under way.
     */
    S10("8 readers and 2 writers, one name, 100 us of work", 8 + Scenario.WRITERS, Kind.READ_WRITE, 100),
    /**
     * S10 over {@value #S10M_CLIENTS} clients: thread {@code t} uses client {@code t % 4}, so readers and writers of
     * other clients contend through Redis rather than inside one client.
     */
    S10m("8 readers and 2 writers over 4 clients, one name, 100 us of work", 8 + Scenario.WRITERS, true, 0, false,
            Kind.READ_WRITE, 100, 1,
            Scenario.S10M_CLIENTS),
    /**
     * A semaphore of {@value #PERMITS} permits, sixteen threads of one client taking one each, with 1 ms of work:
     * ideal about 4,000 acquisitions/s. Never more than {@value #PERMITS} holders at once.
     */
    S11("16 threads, a semaphore of 4 permits, 1 ms of work", 16, Kind.SEMAPHORE, 1000);

    /** What a scenario contends for. */
    enum Kind {
        /** A mutex: S1-S4C. */
        LOCK,
        /** A read-write lock: S10. */
        READ_WRITE,
        /** A semaphore: S11. */
        SEMAPHORE
    }

    /** The writer threads of S10, the last of its threads. */
    static final int WRITERS = 2;
    /** The clients of {@link #S10m}. */
    static final int S10M_CLIENTS = 4;
    /** The permits of S11's semaphore. */
    static final int PERMITS = 4;
    /** S9's clients. */
    static final int S9_CLIENTS = 64;
    /** S9's names. */
    static final int S9_NAMES = 8;
    /** The clients per name in S9 and in its smaller sizes, {@link #S9_8} and {@link #S9_24}. */
    static final int S9_PER_NAME = S9_CLIENTS / S9_NAMES;
    /**
     * The figure that counts a run's acquisitions (lock and unlock pairs in S1 and S2), by which Redis's cost in the
     * run is divided; the bench reports the rate instead.
     */
    static final String ACQUISITIONS = "acquisitions";

    final String description;
    final int threads;
    final boolean shared;
    final int workMillis;
    final boolean clientPerThread;
    final Kind kind;
    /** How many names the threads of a shared scenario contend for: thread {@code t} takes name {@code t % names}. */
    final int names;
    /** How many clients the threads use: thread {@code t} uses client {@code t % clients}. */
    final int clients;
    /** The simulated work under a read-write lock or a semaphore, in microseconds. */
    private final int workMicros;

    Scenario(String description, int threads, boolean shared) {
        this(description, threads, shared, 0, false);
    }

    Scenario(String description, int threads, boolean shared, int workMillis, boolean clientPerThread) {
        this(description, threads, shared, workMillis, clientPerThread, Kind.LOCK, 0);
    }

    Scenario(String description, int threads, Kind kind, int workMicros) {
        this(description, threads, true, 0, false, kind, workMicros);
    }

    Scenario(String description, int threads, boolean shared, int workMillis, boolean clientPerThread, Kind kind,
             int workMicros) {
        this(description, threads, shared, workMillis, clientPerThread, kind, workMicros, 1);
    }

    Scenario(String description, int threads, boolean shared, int workMillis, boolean clientPerThread, Kind kind,
             int workMicros, int names) {
        this(description, threads, shared, workMillis, clientPerThread, kind, workMicros, names,
                clientPerThread ? threads : 1);
    }

    Scenario(String description, int threads, boolean shared, int workMillis, boolean clientPerThread, Kind kind,
             int workMicros, int names, int clients) {
        this.names = names;
        this.clients = clients;
        this.description = description;
        this.threads = threads;
        this.shared = shared;
        this.workMillis = workMillis;
        this.clientPerThread = clientPerThread;
        this.kind = kind;
        this.workMicros = workMicros;
    }

    /** @return S9's sizes, smallest first: {@link #S9_8}, {@link #S9_24} and {@link #S9} itself */
    static List<Scenario> s9Sizes() {
        return List.of(S9_8, S9_24, S9);
    }

    /** @return whether this is S9 or one of its smaller sizes, which run only when named and draw S9's curve */
    boolean isS9() {
        return s9Sizes().contains(this);
    }

    /** @return the wait or pair-time figure the chart and the ratios show: S10's is its writers' */
    String latencyFigure() {
        return switch (kind) {
            case LOCK -> shared ? "wait p99 us" : "pair p99 us";
            case READ_WRITE -> "write wait p99 us";
            case SEMAPHORE -> "wait p99 us";
        };
    }

    Map<String, Double> run(Contender contender, Duration duration, String keyPrefix) throws Exception {
        return run(t -> contender, duration, keyPrefix);
    }

    /**
     * Runs with the contender of each thread given by {@code contenders} (one shared, or one per thread).
     *
     * @throws IllegalStateException if a thread failed, or if a read-write lock or a semaphore let more holders in
     *                               than it may: a broken lock must fail the run, not show up as a figure
     */
    Map<String, Double> run(IntFunction<Contender> contenders, Duration duration, String keyPrefix)
            throws Exception {
        return switch (kind) {
            case LOCK -> runLock(contenders, duration, keyPrefix);
            // Names of their own: Redisson keeps both in keys of the name, of other types than a lock's.
            case READ_WRITE -> runReadWrite(contenders, duration, keyPrefix + "read-write");
            case SEMAPHORE -> runSemaphore(contenders, duration, keyPrefix + "semaphore");
        };
    }

    private Map<String, Double> runLock(IntFunction<Contender> contenders, Duration duration, String keyPrefix)
            throws Exception {
        Recorder latencies = new Recorder(3);
        Recorder handoffs = new Recorder(3);
        // Per name: when its holder last called release, how many hold it, and its non-atomic counter.
        AtomicLong[] releasingAt = new AtomicLong[names];
        AtomicInteger[] inside = new AtomicInteger[names];
        for (int n = 0; n < names; n++) {
            releasingAt[n] = new AtomicLong();
            inside[n] = new AtomicInteger();
        }
        long[] counter = new long[names];
        AtomicInteger overlaps = new AtomicInteger();
        // Who held the one name, in order, for the longest streak (one name only).
        int[] sequence = new int[names == 1 ? 1 << 20 : 0];
        AtomicInteger sequenceLength = new AtomicInteger();
        Driven driven = drive(contenders, duration, (id, contender) -> {
            int slot = id % names;
            String key = keyPrefix + (!shared ? "key-" + id : names == 1 ? "shared" : "shared-" + slot);
            return () -> {
                long t0 = System.nanoTime();
                Contender.Release release = contender.acquire(key);
                long acquired = System.nanoTime();
                if (shared) {
                    if (inside[slot].incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    // The handoff: from the previous holder's call to release to this holder's return.
                    long previous = releasingAt[slot].get();
                    if (previous != 0 && acquired - previous > 0) {
                        handoffs.recordValue(acquired - previous);
                    }
                    // A deliberately non-atomic increment: only the lock keeps updates from being lost.
                    counter[slot] = counter[slot] + 1;
                    int at = sequenceLength.getAndIncrement();
                    if (at < sequence.length) {
                        sequence[at] = id;
                    }
                    if (workMillis > 0) {
                        // Simulated work, such as a call to the protected resource, while holding the lock.
                        Thread.sleep(workMillis);
                    }
                    inside[slot].decrementAndGet();
                    releasingAt[slot].set(System.nanoTime());
                    release.release();
                    latencies.recordValue(acquired - t0);
                } else {
                    release.release();
                    latencies.recordValue(System.nanoTime() - t0);
                }
            };
        });
        long total = driven.total(0, threads);
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("ops/s", total / driven.seconds());
        figures.put(ACQUISITIONS, (double) total);
        percentiles(figures, shared ? "wait" : "pair", latencies, true);
        if (shared) {
            percentiles(figures, "handoff", handoffs, false);
            figures.put("jain", driven.jain());
            if (names == 1) {
                figures.put("longest streak", (double) longestStreak(sequence, Math.min(sequenceLength.get(),
                        sequence.length)));
            }
            figures.put("lost updates", (double) (total - java.util.Arrays.stream(counter).sum()));
            figures.put("overlaps", (double) overlaps.get());
        }
        return figures;
    }

    /**
     * S10: the first threads read, the last {@value #WRITERS} write; {@link Holders} checks that a writer overlaps
     * no holder.
     */
    private Map<String, Double> runReadWrite(IntFunction<Contender> contenders, Duration duration, String key)
            throws Exception {
        Recorder readWaits = new Recorder(3);
        Recorder writeWaits = new Recorder(3);
        Holders holders = new Holders();
        long work = TimeUnit.MICROSECONDS.toNanos(workMicros);
        int firstWriter = threads - WRITERS;
        Driven driven = drive(contenders, duration, (id, contender) -> {
            boolean writer = id >= firstWriter;
            Recorder waits = writer ? writeWaits : readWaits;
            return () -> {
                long t0 = System.nanoTime();
                Contender.Release release = writer ? contender.acquireWrite(key) : contender.acquireRead(key);
                waits.recordValue(System.nanoTime() - t0);
                long seen = holders.in(writer);
                work(work);
                holders.out(writer, seen);
                release.release();
            };
        });
        long reads = driven.total(0, firstWriter);
        long writes = driven.total(firstWriter, threads);
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("ops/s", (reads + writes) / driven.seconds());
        figures.put(ACQUISITIONS, (double) (reads + writes));
        figures.put("reads/s", reads / driven.seconds());
        figures.put("writes/s", writes / driven.seconds());
        percentiles(figures, "read wait", readWaits, false);
        percentiles(figures, "write wait", writeWaits, true);
        figures.put("max readers", (double) holders.mostReaders.get());
        figures.put("overlaps", (double) holders.overlaps.get());
        figures.put("torn reads", (double) holders.tornReads.get());
        figures.put("lost updates", (double) (writes - holders.version.get()));
        failIfUnsafe(contenders, figures, "overlaps", "torn reads", "lost updates");
        return figures;
    }

    /**
     * The holders of S10's read-write lock, as they count themselves in once acquired and out before they release:
     * a writer that counts another holder in, or a reader a writer, overlapped it for sure. Writers also bump a
     * version in two steps (read it on the way in, write it on the way out) and readers check that it did not move
     * while they held the lock: a lost update or a torn read is a write that overlapped.
     */
    private static final class Holders {
        final AtomicInteger readers = new AtomicInteger();
        final AtomicInteger writers = new AtomicInteger();
        final AtomicInteger mostReaders = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger tornReads = new AtomicInteger();
        final AtomicLong version = new AtomicLong();

        /** A writer or a reader has acquired; returns the version it sees. */
        long in(boolean writer) {
            boolean overlap;
            if (writer) {
                overlap = writers.incrementAndGet() != 1 || readers.get() != 0;
            } else {
                mostReaders.accumulateAndGet(readers.incrementAndGet(), Math::max);
                overlap = writers.get() != 0;
            }
            if (overlap) {
                overlaps.incrementAndGet();
            }
            return version.get();
        }

        /** A writer or a reader that saw version {@code seen} is about to release. */
        void out(boolean writer, long seen) {
            if (writer) {
                version.set(seen + 1);
                writers.decrementAndGet();
            } else {
                if (version.get() != seen) {
                    tornReads.incrementAndGet();
                }
                readers.decrementAndGet();
            }
        }
    }

    /** S11: each thread takes one of {@value #PERMITS} permits; more holders than permits at once fails the run. */
    private Map<String, Double> runSemaphore(IntFunction<Contender> contenders, Duration duration, String key)
            throws Exception {
        Recorder waits = new Recorder(3);
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger mostHolders = new AtomicInteger();
        AtomicInteger overLimit = new AtomicInteger();
        long work = TimeUnit.MICROSECONDS.toNanos(workMicros);
        Driven driven = drive(contenders, duration, (id, contender) -> () -> {
            long t0 = System.nanoTime();
            Contender.Release release = contender.acquirePermit(key, PERMITS);
            waits.recordValue(System.nanoTime() - t0);
            int now = holders.incrementAndGet();
            mostHolders.accumulateAndGet(now, Math::max);
            if (now > PERMITS) {
                overLimit.incrementAndGet();
            }
            work(work);
            holders.decrementAndGet();
            release.release();
        });
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("ops/s", driven.total(0, threads) / driven.seconds());
        figures.put(ACQUISITIONS, (double) driven.total(0, threads));
        percentiles(figures, "wait", waits, true);
        figures.put("jain", driven.jain());
        figures.put("max holders", (double) mostHolders.get());
        figures.put("over limit", (double) overLimit.get());
        failIfUnsafe(contenders, figures, "over limit");
        return figures;
    }

    /** Puts a histogram's p50 and p99 (and p99.9 if asked), in microseconds, as "{@code name} p50 us" and so on. */
    private static void percentiles(Map<String, Double> figures, String name, Recorder recorder, boolean p999) {
        var histogram = recorder.getIntervalHistogram();
        figures.put(name + " p50 us", histogram.getValueAtPercentile(50) / 1e3);
        figures.put(name + " p99 us", histogram.getValueAtPercentile(99) / 1e3);
        if (p999) {
            figures.put(name + " p99.9 us", histogram.getValueAtPercentile(99.9) / 1e3);
        }
    }

    /** Fails the run loudly, on stderr and by exception, if any of the named safety counts is not zero. */
    private void failIfUnsafe(IntFunction<Contender> contenders, Map<String, Double> figures, String... counts) {
        List<String> broken = new ArrayList<>();
        for (String count : counts) {
            if (figures.get(count) != 0) {
                broken.add(String.format(Locale.ROOT, "%s %.0f", count, figures.get(count)));
            }
        }
        if (!broken.isEmpty()) {
            String message = String.format(Locale.ROOT, "CORRECTNESS VIOLATION: %s in %s (%s): %s; figures %s",
                    contenders.apply(0).name(), name(), description, String.join(", ", broken), figures);
            System.err.println(message);
            throw new IllegalStateException(message);
        }
    }

    /** Simulated work under the lock, such as a call to the protected resource: parks for at least {@code nanos}. */
    private static void work(long nanos) {
        long until = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /** One thread's acquisition, work and release. */
    @FunctionalInterface
    private interface Turn {
        void run() throws Exception;
    }

    /** Builds a thread's {@link Turn} from its number and contender, before the run starts. */
    @FunctionalInterface
    private interface Turns {
        Turn of(int thread, Contender contender);
    }

    /** What {@link #drive} measured: turns per thread and the seconds they took. */
    private record Driven(long[] perThread, double seconds) {
        long total(int from, int to) {
            long total = 0;
            for (int t = from; t < to; t++) {
                total += perThread[t];
            }
            return total;
        }

        /** Jain's fairness index over the threads' turns. */
        double jain() {
            long total = total(0, perThread.length);
            double squares = 0;
            for (long n : perThread) {
                squares += (double) n * n;
            }
            return total == 0 ? 0 : (double) total * total / (perThread.length * squares);
        }
    }

    /**
     * Starts the scenario's threads together and has each repeat its turn until {@code duration} has passed; a turn
     * under way then completes. Waits for them all.
     *
     * @throws IllegalStateException if a thread failed
     */
    private Driven drive(IntFunction<Contender> contenders, Duration duration, Turns turns) throws Exception {
        long[] perThread = new long[threads];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        long[] window = new long[2];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Turn turn = turns.of(t, contenders.apply(t));
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                    long end = window[1];
                    while (System.nanoTime() - end < 0) {
                        turn.run();
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
        return new Driven(perThread, (System.nanoTime() - window[0]) / 1e9);
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
