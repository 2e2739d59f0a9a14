package dev.warden.bench;

import dev.warden.redisserver.Resp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;

/**
 * What an election costs Redis while nothing changes: the requests clients send per second ({@link RequestCounter},
 * MONITOR) and the commands Redis runs per second, those inside scripts included ({@link ServerCost}), over one
 * window in which a leader holds and a follower waits.
 *
 * @param requestsPerSecond the requests clients sent, per second
 * @param commandsPerSecond the commands Redis ran, per second
 */
record IdleCost(double requestsPerSecond, double commandsPerSecond) {
    /** What a contender that does not use Redis reports: NaN for both. */
    static final IdleCost NONE = new IdleCost(Double.NaN, Double.NaN);

    /** Counts requests and commands on the Redis at {@code uri} for {@code window}. */
    static IdleCost measure(String uri, Duration window) throws IOException, InterruptedException {
        URI parsed = URI.create(uri);
        try (ServerCost server = ServerCost.open(uri);
             Resp admin = new Resp(parsed.getHost(), parsed.getPort(), Duration.ofSeconds(10));
             RequestCounter counter = new RequestCounter(parsed.getHost(), parsed.getPort())) {
            long started = System.nanoTime();
            ServerCost.Reading before = server.read();
            Thread.sleep(window.toMillis());
            double seconds = (System.nanoTime() - started) / 1e9;
            ServerCost.Cost commands = server.read().since(before, seconds);
            long requests = counter.finish(command -> {
                try {
                    admin.call(command);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            // The counter counted until its end marker came back, a little after the window.
            return new IdleCost(requests / ((System.nanoTime() - started) / 1e9), commands.commands());
        }
    }
}
