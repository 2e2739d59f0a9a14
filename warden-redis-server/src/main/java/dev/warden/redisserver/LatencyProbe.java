package dev.warden.redisserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Measures how long a Redis server keeps other clients waiting while something else runs: a thread of its own
 * sends {@code PING} over its own connection about once a millisecond and keeps each round trip's time, until
 * {@link #stop()}, for at most {@link #MAX_RUN}. A command that blocks the server for a while shows as a round
 * trip that long. The times also include this JVM's own pauses (a garbage collection, a descheduled thread), so
 * they bound the server's blocking from above.
 */
public final class LatencyProbe implements AutoCloseable {
    /** The longest a probe runs. */
    public static final Duration MAX_RUN = Duration.ofMinutes(2);

    private final Resp connection;
    private final Thread thread;
    private final List<Long> micros = new ArrayList<>();
    private volatile boolean stopped;
    private volatile IOException failure;

    private LatencyProbe(Resp connection) {
        this.connection = connection;
        this.thread = new Thread(this::run, "latency-probe");
        this.thread.setDaemon(true);
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
            probe.thread.start();
            return probe;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to port " + server.port(), e);
        }
    }

    private void run() {
        long end = System.nanoTime() + MAX_RUN.toNanos();
        try {
            while (!stopped && System.nanoTime() - end < 0) {
                long start = System.nanoTime();
                connection.call("PING");
                long took = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
                synchronized (micros) {
                    micros.add(took);
                }
                Thread.sleep(1);
            }
        } catch (IOException e) {
            failure = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
        stopped = true;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(15));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
