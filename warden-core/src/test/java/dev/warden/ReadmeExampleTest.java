package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The README's usage example, compiled and run as written against a real server. */
class ReadmeExampleTest extends RedisTestSupport {

    @Test
    void readmeExampleWorksAsWritten() throws Exception {
        String redisUri = server.uri() + "/0";
        long fenceSeen;
        try (LockClient client = LockClient.create(LockConfig.builder()
                .redisUri(redisUri)      // database index from the URI; rediss:// and user:password@ supported
                .keyPrefix("lock:")
                .build())) {
            DistributedLock lock = client.lock("orders:42");

            Optional<Lease> now = lock.tryAcquire();                        // immediate: empty if someone else holds it
            assertThat(now).isPresent();
            now.get().release();
            Optional<Lease> soon = lock.tryAcquire(Duration.ofSeconds(5));  // waits up to 5 s
            assertThat(soon).isPresent();
            soon.get().release();
            try (Lease lease = lock.acquire()) {                            // blocks until held; interruptible
                long fence = lease.fencingToken();                          // hand this to the protected resource
                assertThat(lease.isHeld()).isTrue();
                assertThat(server.call("GET", "lock:{orders:42}")).asString().startsWith(fence + ":");
                fenceSeen = fence;
            }                                                               // close() releases
            assertThat(lock.isLocked()).isFalse();
        }
        assertThat(fenceSeen).isPositive();
    }
}
