package dev.warden.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import jdk.jfr.consumer.RecordingStream;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * S7, many waiters, run once per contender: what {@code waiters} threads blocked in acquire cost while {@code locks}
 * locks are held, and how fast the locks then pass through them.
 *
 * <p>The clients are the bench's {@linkplain Contender contenders}, {@code warden} and {@code redisson}, each opened
 * as in the timed scenarios and acquiring with {@link Contender#tryAcquire}.
 *
 * <p>One run: FLUSHALL; a holder client takes each of the {@code locks} names ({@code s7:0} ...) with a renewed lease
 * (Warden: the default 30 s lease and its watchdog; Redisson: {@code lock()} and its 30 s watchdog). Then the
 * waiters start, spread evenly over the names (waiter {@code i} on name {@code i % locks}), each blocked in a timed
 * acquire with a renewed lease (Warden: {@code tryAcquire(wait)}; Redisson: {@code tryLock(wait, unit)}). Where the
 * JVM has virtual threads (21 and later) each waiter is a virtual thread and all share one client; otherwise each is a
 * platform thread, 100 to a client ({@code ceil(waiters / 100)} clients: 100 clients of 100 threads at 10,000
 * waiters, 10 at 1,000). Once the last waiter has started, the run settles for 2 s plus the time the waiters took to
 * start (at most 2 s more), and then measures over a window of {@code hold}:
 *
 * <ul>
 *   <li>the commands Redis processed ({@code INFO stats total_commands_processed}, which counts the commands a
 *       script runs as well as the script: a waiter's try is one script of about ten commands), per second and per
 *       waiter per second; and the scripts ({@code EVAL} and {@code EVALSHA} calls in {@code INFO commandstats}, each
 *       a request) per waiter per second. Nothing is subtracted: the figures include the {@code INFO} calls that take
 *       them and the holders' own renewals, which for Warden are one batched script per renewal period (10 s) for
 *       all holders, and for Redisson one script per held lock per 10 s; and every client's housekeeping (Redisson
 *       pings each pooled connection every 30 s);</li>
 *   <li>the CPU time Redis's main thread used ({@code INFO cpu}, user and system), in ms per second;</li>
 *   <li>the live platform threads of this JVM at the end of the window, and that less the count before any client
 *       was opened (virtual threads are not counted: {@link ThreadMXBean#getThreadCount()} counts platform threads
 *       only).</li>
 * </ul>
 *
 * <p>A Warden waiter registered quietly tries once when the holder's TTL it was told runs out (20 to 30 s after its
 * try, with the watchdog's 30 s lease renewed every 10 s), finds the lock renewed and registers quietly again: one
 * script per waiter per 20-30 s, all of a name's waiters at about the same time. The window sees those tries only if
 * it ends more than 20 s after the waiters joined, as when 10,000 platform threads take over 10 s to start.
 *
 * <p>Then the holders release, one name after another without a pause. From then on a waiter that acquires records
 * its handoff (the {@code nanoTime} of its acquire less that of the previous holder of the name, which publishes it
 * just before calling release), checks that nobody else holds the name, and releases at once. Handoff percentiles over
 * every handoff of the run, the drain time (first release to last waiter's release), and the overlaps (acquires that
 * found another holder of the name) are reported; every waiter must acquire within its wait, or the run fails.
 *
 * <p>The baseline, in the same call and with the same kind of threads: the single-waiter handoff, between the
 * holder client and the first waiter client, one waiter on each of 300 other names. The waiters settle for 3 s
 * (longer than half of Warden's 5 s grant lease, so that, as in the main run, a grant finds a waiter that has waited
 * long enough to try once more before it takes the lease), then the holder releases the names 5 ms apart, so that
 * about one handoff at a time is in flight. Before the main run, a warm-up round (1,000 waiters on 10 names, 1 s)
 * loads the classes of the contended paths and lets the JIT compile them, so that neither run pays for either: with
 * 20 waiters on 2 names, the size run first in a JVM had a handoff p99 several times the others'.
 *
 * <p>With virtual threads, a JFR stream counts {@code jdk.VirtualThreadPinned} events of any duration from the moment
 * a round's waiters start until the last one has released ({@code -Dwarden.bench.s7.pins=true} prints each): a
 * carrier thread pinned by a waiter blocked in acquire shows up there, and so does a class loaded by a virtual
 * thread (a monitor in the class loader), which the warm-up round keeps out of the figure.
 */
final class ManyWaiters {
    /** The contenders S7 measures. */
    static final List<String> CONTENDERS = List.of("warden", "redisson");
    /** Platform threads per client where there are no virtual threads. */
    static final int THREADS_PER_CLIENT = 100;
    /** The names of the single-waiter baseline. */
    static final int BASELINE_NAMES = 300;
    private static final Duration SETTLE = Duration.ofSeconds(2);
    private static final Duration MAX_EXTRA_SETTLE = Duration.ofSeconds(2);
    private static final Duration START_BOUND = Duration.ofSeconds(60);
    private static final Duration DRAIN_BOUND = Duration.ofSeconds(60);
    private static final Duration BASELINE_SETTLE = Duration.ofSeconds(3);
    private static final long BASELINE_GAP_MILLIS = 5;
    /** The warm-up round: waiters on names, with a short settle. */
    private static final int WARM_UP_WAITERS = 1_000;
    private static final int WARM_UP_NAMES = 10;
    private static final Duration WARM_UP_SETTLE = Duration.ofSeconds(1);

    private ManyWaiters() {
    }

    /**
     * Runs S7 once for one contender against the Redis at {@code redisUri}, which it flushes.
     *
     * @param contender "warden" or "redisson"
     * @param redisUri  the Redis server, {@code redis://host:port}
     * @param waiters   how many waiters block in acquire, at least {@code locks}
     * @param locks     how many names they wait for
     * @param hold      how long the measuring window lasts while the holders hold
     * @return figures by name, for the table and results.json
     * @throws IllegalArgumentException if the contender is neither, or a count is out of range
     * @throws IllegalStateException    if a waiter did not start, acquire or finish within its bound
     * @throws Exception                if Redis or a client fails
     */
    static Map<String, Double> run(String contender, String redisUri, int waiters, int locks, Duration hold)
            throws Exception {
        if (!CONTENDERS.contains(contender)) {
            throw new IllegalArgumentException("S7 measures warden and redisson, not " + contender);
        }
        if (locks < 1 || waiters < locks || hold.isNegative()) {
            throw new IllegalArgumentException("S7 needs 1 <= locks <= waiters and a hold >= 0, not " + waiters
                    + " waiters on " + locks + " locks held " + hold);
        }
        Resources.call(redisUri, "FLUSHALL");
        boolean virtual = Runtime.version().feature() >= 21;
        int clientCount = virtual ? 1 : (waiters + THREADS_PER_CLIENT - 1) / THREADS_PER_CLIENT;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int threadsBefore = threads.getThreadCount();
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("waiters", (double) waiters);
        figures.put("locks", (double) locks);
        figures.put("virtual threads", virtual ? 1.0 : 0.0);
        figures.put("clients", (double) clientCount);
        Contenders.Servers servers = new Contenders.Servers(redisUri);
        List<Contender> clients = new ArrayList<>();
        try (Contender holder = Contenders.open(contender, servers)) {
            for (int i = 0; i < clientCount; i++) {
                clients.add(Contenders.open(contender, servers));
            }
            // Loads the classes of the contended paths (a class loaded by a virtual thread pins its carrier) and
            // subscribes nothing that the main round uses.
            Round warmUp = new Round(holder, clients, "s7w:", WARM_UP_WAITERS, WARM_UP_NAMES, virtual);
            warmUp.holdAndStart();
            TimeUnit.MILLISECONDS.sleep(WARM_UP_SETTLE.toMillis());
            warmUp.releaseAndDrain(0);
            Round main = new Round(holder, clients, "s7:", waiters, locks, virtual);
            main.holdAndStart();
            Duration extra = min(main.startTime, MAX_EXTRA_SETTLE);
            TimeUnit.MILLISECONDS.sleep(SETTLE.plus(extra).toMillis());
            long commands = commandsProcessed(redisUri);
            long scripts = Resources.scriptCalls(redisUri);
            double cpu = Resources.redisCpuSeconds(redisUri);
            long start = System.nanoTime();
            TimeUnit.MILLISECONDS.sleep(hold.toMillis());
            int threadsHeld = threads.getThreadCount();
            double seconds = Math.max(1e-9, (System.nanoTime() - start) / 1e9);
            long commandsHeld = commandsProcessed(redisUri) - commands;
            long scriptsHeld = Resources.scriptCalls(redisUri) - scripts;
            double cpuHeld = Resources.redisCpuSeconds(redisUri) - cpu;
            figures.put("redis commands per s (held)", commandsHeld / seconds);
            figures.put("commands per waiter per s (held)", commandsHeld / seconds / waiters);
            figures.put("scripts per waiter per s (held)", scriptsHeld / seconds / waiters);
            figures.put("redis cpu ms per s (held)", cpuHeld * 1000 / seconds);
            figures.put("client threads (held)", (double) threadsHeld);
            figures.put("client threads added", (double) (threadsHeld - threadsBefore));
            figures.put("start s", main.startTime.toNanos() / 1e9);
            main.releaseAndDrain(0);
            figures.put("handoff p50 ms", main.handoffs.getValueAtPercentile(50) / 1e6);
            figures.put("handoff p99 ms", main.handoffs.getValueAtPercentile(99) / 1e6);
            figures.put("handoff max ms", main.handoffs.getMaxValue() / 1e6);
            figures.put("drain s", main.drainNanos / 1e9);
            figures.put("acquired", (double) main.acquired.get());
            figures.put("overlaps", (double) main.overlaps.get());
            figures.put("lost", (double) main.lost.get());
            figures.put("pinned", (double) main.pinned.get());
            figures.put("pinned (warm-up)", (double) warmUp.pinned.get());

            Round baseline = new Round(holder, clients.subList(0, 1), "s7b:", BASELINE_NAMES, BASELINE_NAMES,
                    virtual);
            baseline.holdAndStart();
            TimeUnit.MILLISECONDS.sleep(BASELINE_SETTLE.toMillis());
            baseline.releaseAndDrain(BASELINE_GAP_MILLIS);
            double single = baseline.handoffs.getValueAtPercentile(99) / 1e6;
            figures.put("single-waiter handoff p50 ms", baseline.handoffs.getValueAtPercentile(50) / 1e6);
            figures.put("single-waiter handoff p99 ms", single);
            figures.put("handoff p99 / single-waiter p99", figures.get("handoff p99 ms") / single);
            figures.put("overlaps", figures.get("overlaps") + baseline.overlaps.get());
            figures.put("lost", figures.get("lost") + baseline.lost.get());
        } finally {
            for (Contender client : clients) {
                client.close();
            }
        }
        Resources.call(redisUri, "FLUSHALL");
        return figures;
    }

    /**
     * One hold and drain: a holder on each name, waiters spread over the names, then the holder's releases and the
     * waiters' handoffs.
     */
    private static final class Round {
        private final Contender holder;
        private final List<Contender> clients;
        private final String prefix;
        private final int waiters;
        private final int locks;
        private final boolean virtual;
        private final List<Contender.Release> held = new ArrayList<>();
        /** Per name, how many hold it now, as the waiters see it. */
        private final AtomicInteger[] holders;
        /** Per name, the {@code nanoTime} at which its last holder began to release it; 0 while held by the holder. */
        private final AtomicLong[] released;
        private final Histogram handoffs = new ConcurrentHistogram(3);
        private final AtomicInteger started = new AtomicInteger();
        private final AtomicInteger acquired = new AtomicInteger();
        private final AtomicInteger finished = new AtomicInteger();
        private final AtomicInteger overlaps = new AtomicInteger();
        private final AtomicInteger lost = new AtomicInteger();
        private final AtomicInteger pinned = new AtomicInteger();
        private final AtomicLong lastRelease = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private ExecutorService pool;
        private RecordingStream pins;
        private Duration startTime;
        private long drainNanos;

        Round(Contender holder, List<Contender> clients, String prefix, int waiters, int locks, boolean virtual) {
            this.holder = holder;
            this.clients = clients;
            this.prefix = prefix;
            this.waiters = waiters;
            this.locks = locks;
            this.virtual = virtual;
            this.holders = new AtomicInteger[locks];
            this.released = new AtomicLong[locks];
            for (int i = 0; i < locks; i++) {
                holders[i] = new AtomicInteger();
                released[i] = new AtomicLong();
            }
        }

        /**
         * Takes every name with the holder client, then starts the waiters and returns once all have started.
         *
         * @throws IllegalStateException if they did not all start within a minute
         */
        void holdAndStart() throws Exception {
            for (int i = 0; i < locks; i++) {
                held.add(holder.tryAcquire(prefix + i, Duration.ofSeconds(10)).orElseThrow(
                        () -> new IllegalStateException("the holder could not take a free lock")));
            }
            pool = virtual ? virtualThreads() : Executors.newFixedThreadPool(waiters, platformThreads());
            if (virtual) {
                pins = pinningEvents(pinned);
            }
            long begin = System.nanoTime();
            for (int i = 0; i < waiters; i++) {
                int name = i % locks;
                Contender client = clients.get(i / THREADS_PER_CLIENT % clients.size());
                pool.execute(() -> waiter(client, name));
            }
            long end = begin + START_BOUND.toNanos();
            while (started.get() < waiters) {
                if (System.nanoTime() - end > 0) {
                    throw new IllegalStateException(started.get() + " of " + waiters + " waiters started within "
                            + START_BOUND);
                }
                TimeUnit.MILLISECONDS.sleep(10);
            }
            startTime = Duration.ofNanos(System.nanoTime() - begin);
        }

        /** One waiter: blocks in acquire, then records its handoff and releases at once. */
        private void waiter(Contender client, int name) {
            try {
                started.incrementAndGet();
                // Long enough for any bounded run: the caller's own bounds fail the run first.
                long begin = System.nanoTime();
                Optional<Contender.Release> lease = client.tryAcquire(prefix + name, Duration.ofMinutes(10));
                if (lease.isEmpty()) {
                    throw new IllegalStateException("a waiter of " + prefix + name + " was told it did not get the"
                            + " lock within its 10 min wait, after " + (System.nanoTime() - begin) / 1_000_000 + " ms");
                }
                long now = System.nanoTime();
                acquired.incrementAndGet();
                if (holders[name].incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                long before = released[name].get();
                if (before == 0) {
                    overlaps.incrementAndGet(); // acquired while the holder still held it
                } else {
                    handoffs.recordValue(Math.max(0, now - before));
                }
                holders[name].decrementAndGet();
                released[name].set(System.nanoTime());
                if (!lease.get().releaseHeld()) {
                    lost.incrementAndGet();
                }
                lastRelease.accumulateAndGet(System.nanoTime(), Math::max);
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            } finally {
                finished.incrementAndGet();
            }
        }

        /**
         * Releases every name, {@code gapMillis} apart, and waits until every waiter has acquired and released.
         *
         * @throws IllegalStateException if a waiter failed or they did not all finish within a minute
         */
        void releaseAndDrain(long gapMillis) throws Exception {
            try {
                long begin = System.nanoTime();
                for (int i = 0; i < locks; i++) {
                    if (i > 0 && gapMillis > 0) {
                        TimeUnit.MILLISECONDS.sleep(gapMillis);
                    }
                    released[i].set(System.nanoTime());
                    if (!held.get(i).releaseHeld()) {
                        lost.incrementAndGet();
                    }
                }
                long end = System.nanoTime() + DRAIN_BOUND.toNanos();
                while (finished.get() < waiters && failure.get() == null) {
                    if (System.nanoTime() - end > 0) {
                        throw new IllegalStateException(acquired.get() + " of " + waiters + " waiters acquired and "
                                + finished.get() + " finished within " + DRAIN_BOUND + " of the release");
                    }
                    TimeUnit.MILLISECONDS.sleep(5);
                }
                if (failure.get() != null) {
                    throw new IllegalStateException("a waiter failed", failure.get());
                }
                drainNanos = lastRelease.get() - begin;
            } finally {
                pool.shutdownNow();
                if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("waiters still running 30 s after an interrupt");
                }
                if (pins != null) {
                    stop(pins);
                }
            }
        }
    }

    /** @return an executor that starts a virtual thread per task (Java 21), called reflectively: this is Java 17 */
    private static ExecutorService virtualThreads() throws ReflectiveOperationException {
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }

    /** @return daemon platform threads named {@code s7-waiter-N}, with small stacks */
    private static ThreadFactory platformThreads() {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(null, task, "s7-waiter-" + count.incrementAndGet(), 256 * 1024);
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Counts {@code jdk.VirtualThreadPinned} events of any duration until the returned stream is closed.
     *
     * @return the stream, or null where JFR cannot stream
     */
    private static RecordingStream pinningEvents(AtomicInteger count) {
        try {
            RecordingStream stream = new RecordingStream();
            stream.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            stream.onEvent("jdk.VirtualThreadPinned", event -> {
                count.incrementAndGet();
                if (Boolean.getBoolean("warden.bench.s7.pins")) {
                    System.err.println("PINNED " + event);
                }
            });
            stream.startAsync();
            return stream;
        } catch (RuntimeException | Error e) {
            count.set(-1);
            return null;
        }
    }

    /**
     * Stops a stream once it has processed every event recorded so far ({@code RecordingStream.stop()}, Java 20,
     * called reflectively), and closes it.
     */
    private static void stop(RecordingStream stream) {
        try {
            RecordingStream.class.getMethod("stop").invoke(stream);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("could not stop the JFR stream", e);
        } finally {
            stream.close();
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** @return the commands the server has processed since it started ({@code INFO stats}) */
    private static long commandsProcessed(String uri) throws Exception {
        String info = (String) Resources.call(uri, "INFO", "stats");
        for (String line : info.split("\r\n")) {
            if (line.startsWith("total_commands_processed:")) {
                return Long.parseLong(line.substring("total_commands_processed:".length()));
            }
        }
        throw new IllegalStateException("no total_commands_processed in INFO stats");
    }

}
