package dev.warden.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.LockClient;
import dev.warden.redisserver.RedisServerExtension;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The starter in a whole Spring Boot application, found by auto-configuration as a user's application finds it. */
@SpringBootTest(classes = SpringBootApplicationTest.Application.class)
@Timeout(60)
class SpringBootApplicationTest {
    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    @Autowired
    private LockClient client;
    @Autowired
    private Job job;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("warden.redis-uri", () -> REDIS.server().uri());
        registry.add("warden.key-prefix", () -> "app:");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {
        @Bean
        Job job() {
            return new Job();
        }
    }

    /** A job that must run on one instance at a time. */
    public static class Job {
        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @Locked(value = "nightly", onNotAcquired = Locked.OnNotAcquired.SKIP)
        public void run() {
            runs.incrementAndGet();
        }
    }

    @Test
    void theAutoConfiguredClientRunsTheJobOnceWhileAnotherHolderHasItsLock() {
        assertThat(client.config().keyPrefix()).isEqualTo("app:");
        var held = client.lock("nightly").tryAcquire().orElseThrow();
        job.run();
        assertThat(job.runs()).isZero();
        held.release();
        job.run();
        assertThat(job.runs()).isEqualTo(1);
        assertThat(REDIS.server().call("EXISTS", "app:{nightly}")).isEqualTo(0L);
    }
}
