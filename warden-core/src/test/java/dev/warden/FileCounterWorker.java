package dev.warden;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A separate JVM for {@link ScenarioTest}: increments a counter kept in a file, under the lock, a number of times.
 * The file holds "count lastFence"; a fence that does not exceed the last one is an error (exit 3).
 * Arguments: redisUri file iterations lockName.
 */
public final class FileCounterWorker {
    private FileCounterWorker() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[1]);
        int iterations = Integer.parseInt(args[2]);
        try (LockClient client = LockClient.create(LockConfig.builder().redisUri(args[0]).keyPrefix("test:").build())) {
            DistributedLock lock = client.lock(args[3]);
            for (int i = 0; i < iterations; i++) {
                try (Lease lease = lock.tryAcquire(Duration.ofSeconds(60)).orElseThrow()) {
                    String[] state = Files.readString(file, StandardCharsets.UTF_8).trim().split(" ");
                    long count = Long.parseLong(state[0]);
                    long lastFence = Long.parseLong(state[1]);
                    if (lease.fencingToken() <= lastFence) {
                        System.err.println("fence went backwards: " + lease.fencingToken() + " <= " + lastFence);
                        System.exit(3);
                    }
                    // Deliberately not atomic: only the lock keeps the increments from being lost.
                    Files.writeString(file, (count + 1) + " " + lease.fencingToken(), StandardCharsets.UTF_8);
                }
            }
        }
    }
}
