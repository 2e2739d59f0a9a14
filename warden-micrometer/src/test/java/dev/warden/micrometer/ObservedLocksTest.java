package dev.warden.micrometer;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockException;
import dev.warden.LockInfo;
import dev.warden.ReadWriteLockInfo;
import dev.warden.SemaphoreInfo;
import dev.warden.redisserver.RedisServerExtension;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link ObservedLocks}: each acquire call is one observation, with its outcome, error and wait. */
@Timeout(60)
class ObservedLocksTest {
    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();
    private TestObservationRegistry registry;
    /** The contexts of the observations that stopped, in order. */
    private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
    private LockClient client;

    @BeforeEach
    void newClient() {
        REDIS.server().call("FLUSHALL");
        registry = TestObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                if (context.getName().equals("warden.lock.acquire")) {
                    stopped.add(context);
                }
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        client = ObservedLocks.wrap(LockClient.create(LockConfig.builder().redisUri(REDIS.server().uri())
                .keyPrefix("observed:").build()), registry, name -> name.replaceAll(":\\d+$", ":*"));
    }

    @AfterEach
    void closeClient() {
        client.close();
    }

    @Test
    void anAcquireIsOneObservationWithItsOutcomeAndTheCallersParent() throws InterruptedException {
        DistributedLock lock = client.lock("orders:7");
        Observation parent = Observation.start("request", registry);
        Lease lease;
        try (Observation.Scope scope = parent.openScope()) {
            lease = lock.tryAcquire(Duration.ofSeconds(1)).orElseThrow();
        } finally {
            parent.stop();
        }
        assertThat(registry).hasNumberOfObservationsWithNameEqualTo("warden.lock.acquire", 1)
                .hasObservationWithNameEqualTo("warden.lock.acquire").that()
                .hasBeenStarted().hasBeenStopped()
                .hasLowCardinalityKeyValue("lock", "orders:*")
                .hasLowCardinalityKeyValue("outcome", "acquired")
                .hasHighCardinalityKeyValue("lock.name", "orders:7")
                .hasContextualNameEqualTo("acquire orders:*")
                .hasParentObservationEqualTo(parent);
        Assertions.assertThat(lease.release()).isTrue();
    }

    @Test
    void notAcquiredAndFailedAreTheirOwnOutcomes() throws InterruptedException {
        DistributedLock lock = client.lock("orders:8");
        Lease held = lock.tryAcquire().orElseThrow();
        // From another thread: this one, holding the lock, would be refused at once rather than wait for itself.
        Assertions.assertThat(CompletableFuture.supplyAsync(() -> {
            try {
                return lock.tryAcquire(Duration.ofMillis(50));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }).join()).isEmpty();
        REDIS.server().call("HSET", "observed:{orders:9}", "a", "b");
        assertThatThrownBy(() -> client.lock("orders:9").tryAcquire()).isInstanceOf(LockException.class);
        assertThat(registry).hasNumberOfObservationsWithNameEqualTo("warden.lock.acquire", 3);
        Assertions.assertThat(stopped).extracting(c -> c.getHighCardinalityKeyValue("lock.name").getValue() + " "
                + c.getLowCardinalityKeyValue("outcome").getValue() + " " + (c.getError() != null))
                .containsExactly("orders:8 acquired false", "orders:8 not_acquired false", "orders:9 failed true");
        Assertions.assertThat(stopped.get(2).getError()).isInstanceOf(LockException.class);
        held.release();
    }

    @Test
    void anAsyncAcquireIsObservedUntilItsFutureCompletesAndCancellingStillStopsIt() throws Exception {
        DistributedLock lock = client.lock("orders:10");
        Lease held = lock.tryAcquire().orElseThrow();
        CompletableFuture<Lease> waiting = lock.acquireAsync(Duration.ofSeconds(30));
        assertThat(registry).hasNumberOfObservationsWithNameEqualTo("warden.lock.acquire", 2);
        // Only the first has ended; the second waits.
        Assertions.assertThat(stopped).hasSize(1);
        Assertions.assertThat(waiting.cancel(false)).isTrue();
        Assertions.assertThat(stopped).hasSize(2);
        Assertions.assertThat(stopped.get(1).getLowCardinalityKeyValue("outcome").getValue())
                .isEqualTo("not_acquired");
        // The cancel reached the acquisition: once the holder releases, nobody holds the lock.
        held.release();
        Assertions.assertThat(lock.isLocked()).isFalse();

        CompletableFuture<Lease> taken = lock.acquireAsync(Duration.ofSeconds(5));
        taken.get(5, TimeUnit.SECONDS).release();
        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (stopped.size() < 3 && System.nanoTime() < bound) {
            Thread.onSpinWait();
        }
        Assertions.assertThat(stopped).hasSize(3);
        Assertions.assertThat(stopped.get(2).getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("acquired");
    }

    @Test
    void listingsOfEveryKindPassThroughTheWrapper() throws Exception {
        try (Lease lock = client.lock("orders:1").tryAcquire().orElseThrow();
             Lease read = client.readWriteLock("prices").readLock().tryAcquire().orElseThrow();
             Lease permit = client.semaphore("exports", 2).tryAcquire(1).orElseThrow()) {
            Assertions.assertThat(client.locks("*", 10)).extracting(LockInfo::name).containsExactly("orders:1");
            Assertions.assertThat(client.locksAsync("*", 10).get(10, TimeUnit.SECONDS)).hasSize(1);
            Assertions.assertThat(client.readWriteLocks("*", 10)).extracting(ReadWriteLockInfo::name)
                    .containsExactly("prices");
            Assertions.assertThat(client.readWriteLocksAsync("*", 10).get(10, TimeUnit.SECONDS)).hasSize(1);
            Assertions.assertThat(client.semaphores("*", 10)).extracting(SemaphoreInfo::name)
                    .containsExactly("exports");
            Assertions.assertThat(client.semaphoresAsync("*", 10).get(10, TimeUnit.SECONDS)).hasSize(1);
        }
    }
}
