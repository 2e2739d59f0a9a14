package dev.warden.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.Leadership;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockException;
import dev.warden.Term;
import dev.warden.redisserver.RedisServerExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link WardenMetrics} against a real Redis: what each meter counts, and the tags it carries. */
@Timeout(60)
class WardenMetricsTest {
    private static final AtomicInteger NAMES = new AtomicInteger();
    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();
    private final List<LockClient> clients = new ArrayList<>();
    private SimpleMeterRegistry registry;

    @BeforeEach
    void newRegistry() {
        registry = new SimpleMeterRegistry();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    @Test
    void acquisitionsWaitsHoldsAndTheGaugesAreCounted() throws InterruptedException {
        LockClient client = client(WardenMetrics.builder(registry).build(), b -> { });
        String name = name();
        DistributedLock lock = client.lock(name);
        Lease first = lock.tryAcquire().orElseThrow();
        assertThat(lock.tryAcquire()).isEmpty();
        await(() -> gauge("warden.lock.leases") == 1 && acquireCount(name, "not_acquired", false) == 1);
        assertThat(acquire(name, "acquired", false).count()).isEqualTo(1);

        Thread waiter = new Thread(() -> {
            try {
                lock.tryAcquire(Duration.ofSeconds(10)).orElseThrow().release();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.start();
        await(() -> gauge("warden.lock.waiters") == 1);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        assertThat(first.release()).isTrue();
        waiter.join(10_000);
        await(() -> gauge("warden.lock.waiters") == 0 && gauge("warden.lock.leases") == 0
                && heldCount(name) == 2 && acquireCount(name, "acquired", true) == 1);
        Timer waited = acquire(name, "acquired", true);
        assertThat(waited.count()).isEqualTo(1);
        assertThat(waited.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(200);
        assertThat(registry.get("warden.lock.held").tag("lock", name).timer().max(TimeUnit.MILLISECONDS))
                .isGreaterThanOrEqualTo(200);
    }

    @Test
    void lostLeasesAreCountedByCauseAndErrorsByException() {
        LockClient client = client(WardenMetrics.builder(registry).build(), b -> b.defaultLease(Duration.ofMillis(600)));
        String gone = name();
        client.lock(gone).tryAcquire().orElseThrow();
        REDIS.server().call("DEL", "metrics:{" + gone + "}");
        String ranOut = name();
        try {
            client.lock(ranOut).tryAcquire(Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        await(() -> lost(gone, "not_in_redis") == 1 && lost(ranOut, "ran_out") == 1);
        await(() -> gauge("warden.lock.leases") == 0);
        // The renewals of the first lease, until it was found gone, were timed.
        assertThat(registry.get("warden.lock.renewal").tag("outcome", "renewed").timer().count()
                + registry.get("warden.lock.renewal").tag("outcome", "failed").timer().count()).isPositive();
        assertThat(registry.get("warden.lock.renewal.lag").timer().count()).isPositive();

        String wrongType = name();
        REDIS.server().call("HSET", "metrics:{" + wrongType + "}", "a", "b");
        assertThatThrownBy(() -> client.lock(wrongType).tryAcquire()).isInstanceOf(LockException.class);
        await(() -> registry.find("warden.lock.errors").tag("operation", "acquire")
                .tag("exception", "LockException").counter() != null && acquireCount(wrongType, "failed", false) == 1);
        assertThat(acquire(wrongType, "failed", false).count()).isEqualTo(1);
    }

    @Test
    void lockNamesCanBeMappedToPatternsOrLeftOut() throws InterruptedException {
        SimpleMeterRegistry other = new SimpleMeterRegistry();
        LockClient mapped = client(WardenMetrics.builder(registry)
                .lockTag(name -> name.replaceAll(":\\d+$", ":*")).tags("client", "mapped").build(), b -> { });
        LockClient untagged = client(WardenMetrics.builder(other).withoutLockTag().build(), b -> { });
        for (int i = 0; i < 3; i++) {
            mapped.lock("orders:" + i).tryAcquire().orElseThrow().release();
            untagged.lock("orders:" + i).tryAcquire().orElseThrow().release();
        }
        await(() -> registry.find("warden.lock.held").timers().stream().mapToLong(Timer::count).sum() == 3
                && other.find("warden.lock.held").timers().stream().mapToLong(Timer::count).sum() == 3);
        assertThat(registry.find("warden.lock.held").timers()).singleElement().satisfies(timer -> {
            assertThat(timer.getId().getTag("lock")).isEqualTo("orders:*");
            assertThat(timer.getId().getTag("client")).isEqualTo("mapped");
        });
        assertThat(other.find("warden.lock.held").timers()).singleElement()
                .satisfies(timer -> assertThat(timer.getId().getTag("lock")).isNull());
        assertThat(other.getMeters()).allMatch(meter -> meter.getId().getTag("lock") == null);
    }

    @Test
    void twoClientsWithTheSameTagsInOneRegistryAreRefusedNotMerged() {
        WardenMetrics.builder(registry).build();
        assertThatThrownBy(() -> WardenMetrics.builder(registry).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("own tags");
        WardenMetrics.builder(registry).tags("client", "second").build();
        assertThat(registry.find("warden.lock.leases").gauges()).hasSize(2);
        assertThat(registry.find("warden.lock.leases").tag("client", "second").gauges()).hasSize(1);
        assertThatThrownBy(() -> WardenMetrics.builder(registry).tags("odd"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pairs");
    }

    @Test
    void theLeaderGaugeAndTheElectionsAndRevocationsMoveWithEachTerm() throws InterruptedException {
        // Leases renewed every second: the forced release is found within about that.
        LockClient client = client(WardenMetrics.builder(registry).build(), b -> b.defaultLease(Duration.ofSeconds(3)));
        String election = name();
        Leadership candidate = client.leadership(election);
        Term first = candidate.awaitLeadership(Duration.ofSeconds(10)).orElseThrow();
        await(() -> leader(election) == 1 && elections(election) == 1);

        assertThat(candidate.stepDown()).isTrue();
        // Nobody else competes: it leads again, in a new term.
        await(() -> revocations(election, "stepped_down") == 1 && elections(election) == 2 && leader(election) == 1);
        Term second = candidate.term().orElseThrow();
        assertThat(second.epoch()).isGreaterThan(first.epoch());

        try (LockClient other = LockClient.create(LockConfig.builder().redisUri(REDIS.server().uri())
                .keyPrefix("metrics:").build())) {
            assertThat(other.lock(election).forceRelease()).isPresent();
        }
        await(() -> revocations(election, "lost") == 1 && elections(election) == 3 && leader(election) == 1);

        candidate.close();
        await(() -> revocations(election, "closed") == 1 && leader(election) == 0);
        assertThat(elections(election)).isEqualTo(3);
        assertThat(registry.find("warden.leadership.leader").gauges()).singleElement()
                .satisfies(gauge -> assertThat(gauge.getId().getTag("election")).isEqualTo(election));

        // The election tag follows the lock tag's policy: left out with it. (And a client wrapped for observations
        // gives the wrapped client's candidates.)
        SimpleMeterRegistry untagged = new SimpleMeterRegistry();
        Leadership quiet = ObservedLocks.wrap(client(WardenMetrics.builder(untagged).withoutLockTag().build(),
                b -> { }), ObservationRegistry.create()).leadership(name());
        assertThat(quiet.awaitLeadership(Duration.ofSeconds(10))).isPresent();
        await(() -> untagged.find("warden.leadership.leader").gauge() != null
                && untagged.get("warden.leadership.leader").gauge().value() == 1);
        assertThat(untagged.get("warden.leadership.elections").counter().getId().getTag("election")).isNull();
    }

    private double leader(String election) {
        Gauge gauge = registry.find("warden.leadership.leader").tag("election", election).gauge();
        return gauge == null ? -1 : gauge.value();
    }

    private double elections(String election) {
        Counter counter = registry.find("warden.leadership.elections").tag("election", election).counter();
        return counter == null ? 0 : counter.count();
    }

    private double revocations(String election, String cause) {
        Counter counter = registry.find("warden.leadership.revocations").tag("election", election)
                .tag("cause", cause).counter();
        return counter == null ? 0 : counter.count();
    }

    private Timer acquire(String lock, String outcome, boolean waited) {
        Timer timer = registry.find("warden.lock.acquire").tag("lock", lock).tag("outcome", outcome)
                .tag("waited", Boolean.toString(waited)).timer();
        assertThat(timer).as("acquire timer %s %s waited=%s", lock, outcome, waited).isNotNull();
        return timer;
    }

    private long acquireCount(String lock, String outcome, boolean waited) {
        Timer timer = registry.find("warden.lock.acquire").tag("lock", lock).tag("outcome", outcome)
                .tag("waited", Boolean.toString(waited)).timer();
        return timer == null ? 0 : timer.count();
    }

    private long heldCount(String lock) {
        Timer timer = registry.find("warden.lock.held").tag("lock", lock).timer();
        return timer == null ? 0 : timer.count();
    }

    private double lost(String lock, String cause) {
        Counter counter = registry.find("warden.lock.lost").tag("lock", lock).tag("cause", cause).counter();
        return counter == null ? 0 : counter.count();
    }

    private double gauge(String name) {
        return registry.get(name).gauge().value();
    }

    /** Events reach the metrics on the client's event thread: wait, bounded, for what the test expects. */
    private static void await(BooleanSupplier condition) {
        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - bound).as("condition within 10 s").isNegative();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }

    private LockClient client(WardenMetrics metrics, Consumer<LockConfig.Builder> settings) {
        LockConfig.Builder builder = LockConfig.builder().redisUri(REDIS.server().uri()).keyPrefix("metrics:")
                .listener(metrics);
        settings.accept(builder);
        LockClient client = LockClient.create(builder.build());
        clients.add(client);
        return client;
    }

    private static String name() {
        return "lock-" + NAMES.incrementAndGet();
    }
}
