package dev.warden;

import java.time.Duration;
import java.util.Optional;

/**
 * A separate JVM for {@link QuietWaitingTest}: waits for a lock, and says when it got it or gave up. The test kills it
 * while it waits. Arguments: redisUri lockName waitSeconds.
 */
public final class WaiterProcess {
    private WaiterProcess() {
    }

    public static void main(String[] args) throws Exception {
        try (LockClient client = LockClient.create(LockConfig.builder().redisUri(args[0]).keyPrefix("test:").build())) {
            Optional<Lease> lease = client.lock(args[1]).tryAcquire(Duration.ofSeconds(Long.parseLong(args[2])));
            System.out.println(lease.isPresent() ? "acquired" : "gave up");
            lease.ifPresent(Lease::release);
        }
    }
}
