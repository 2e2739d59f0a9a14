package dev.warden.redisserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The latency probe measures round trips while it runs, and stopping it waits for the one in flight only. */
class LatencyProbeTest {

    @Test
    void measuresRoundTripsAndStopsAtOnce() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            LatencyProbe probe = LatencyProbe.start(server);
            TimeUnit.MILLISECONDS.sleep(200);
            long start = System.nanoTime();
            probe.stop();
            probe.close();
            Duration stopping = Duration.ofNanos(System.nanoTime() - start);

            // The probe's end after MAX_RUN is a delayed task; once kept alive by it, stop and close took 15 s each.
            assertThat(stopping).isLessThan(Duration.ofSeconds(2));
            assertThat(probe.count()).isPositive();
            int counted = probe.count();
            TimeUnit.MILLISECONDS.sleep(50);
            assertThat(probe.count()).as("no round trip after the stop").isEqualTo(counted);
            assertThat(probe.percentileMicros(50)).isPositive().isLessThanOrEqualTo(probe.maxMicros());
        }
    }
}
