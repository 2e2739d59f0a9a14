package dev.warden.redisserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Measures how long a Redis server keeps other clients waiting while something else runs: a scheduler thread of
 * its own sends {@code PING} over its own connection, a millisecond after the last answer, and keeps each round
 * trip's time, until {@link #stop()}, for at most {@link #MAX_RUN}. A command that blocks the server for a while shows as a round
 * trip that long. The times also include this JVM's own pauses (a garbage collection, a descheduled thread), so
 * they bound the server's blocking from above.
 */
public final class LatencyProbe implements AutoCloseable {
    /** The longest a probe runs. */
    public static final Duration MAX_RUN = Duration.ofMinutes(2);

    private final Resp connection;
    /**
     * Drops its delayed tasks on shutdown (the end of {@link #MAX_RUN}), so that stopping waits for the round trip
     * in flight only: by default the delayed end kept it alive, and every stop and close waited 15 s for it.
     */
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, task -> {
        Thread thread = new Thread(task, "latency-probe");
        thread.setDaemon(true);
        return thread;
    });
    /** Guarded by itself. */
    private final List<Long> micros = new ArrayList<>();
    private volatile IOException failure;

    private LatencyProbe(Resp connection) {
        this.connection = connection;
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * Connects to the server and starts probing.
     *
     * @param server the server
     * @return the running probe
     * @throws UncheckedIOException if the server cannot be reached
     */
    public static LatencyProbe start(RedisServer server) {
        try {
            LatencyProbe probe = new LatencyProbe(new Resp(server.host(), server.port(), Duration.ofSeconds(10)));
            probe.scheduler.scheduleWithFixedDelay(probe::ping, 0, 1, TimeUnit.MILLISECONDS);
            probe.scheduler.schedule(probe.scheduler::shutdown, MAX_RUN.toMillis(), TimeUnit.MILLISECONDS);
            return probe;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to port " + server.port(), e);
        }
    }

    /** One round trip; a failed one ends the probe, and {@link #stop()} reports it. */
    private void ping() {
        try {
            long start = System.nanoTime();
            connection.call("PING");
            long took = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
            synchronized (micros) {
                micros.add(took);
            }
        } catch (IOException e) {
            failure = e;
            scheduler.shutdown();
        }
    }

    /**
     * Stops probing and waits for the last round trip.
     *
     * @throws UncheckedIOException if a round trip failed
     */
    public void stop() {
        halt();
        if (failure != null) {
            throw new UncheckedIOException("PING failed", failure);
        }
    }

    /** @return how many round trips were measured */
    public int count() {
        synchronized (micros) {
            return micros.size();
        }
    }

    /** @return the longest round trip in µs, 0 if none was measured */
    public long maxMicros() {
        return percentileMicros(100);
    }

    /**
     * @param percent from 0 to 100
     * @return the round trip in µs that this percentage of them did not exceed, 0 if none was measured
     */
    public long percentileMicros(double percent) {
        List<Long> sorted;
        synchronized (micros) {
            sorted = new ArrayList<>(micros);
        }
        if (sorted.isEmpty()) {
            return 0;
        }
        Collections.sort(sorted);
        int index = (int) Math.ceil(percent / 100 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    /** Stops probing and closes the connection. */
    @Override
    public void close() {
        halt();
        try {
            connection.close();
        } catch (IOException e) {
            // Closing a socket of a probe: nothing to do.
        }
    }

    private void halt() {
        scheduler.shutdown();
        try {
            scheduler.awaitTermination(15, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
