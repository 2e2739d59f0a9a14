package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A semaphore's number of permits changes while leases are held: a raise lends at once, holders above a lowered
 * number keep their permits and nothing more is lent until the permits in use are below it, and a client that names
 * another number while the semaphore is in use fails with both numbers.
 */
class SemaphoreResizeTest extends RedisTestSupport {
    private static final long BOUND_SECONDS = 10;

    private static boolean queued(String name, long count) {
        return (Long) server.call("ZCARD", "test:{" + name + "}:s:q") == count;
    }

    @Test
    void aRaiseLendsTheNewPermitsToWaitersAtOnce() throws Exception {
        String name = uniqueName();
        DistributedSemaphore two = client().semaphore(name, 2);
        Lease held = two.acquire(2);
        CompletableFuture<Lease> waiter = client().semaphore(name, 2).acquireAsync(1,
                Duration.ofSeconds(BOUND_SECONDS));
        assertThat(eventually(Duration.ofSeconds(5), () -> queued(name, 1))).isTrue();

        DistributedSemaphore three = two.resize(3);

        assertThat(three.permits()).isEqualTo(3);
        Lease granted = waiter.get(BOUND_SECONDS, TimeUnit.SECONDS);
        assertThat(granted.isHeld()).isTrue();
        assertThat(held.confirm()).isTrue();
        assertThat(three.available()).isZero();
        assertThat(three.inspect().permits()).isEqualTo(3);
        assertThat(three.inspect().holders()).isEqualTo(2);
    }

    @Test
    void holdersAboveALoweredNumberKeepTheirPermitsAndNothingMoreIsLentUntilBelowIt() throws Exception {
        String name = uniqueName();
        DistributedSemaphore four = client().semaphore(name, 4);
        DistributedSemaphore fourElsewhere = client().semaphore(name, 4);
        List<Lease> leases = new ArrayList<>(List.of(four.acquire(), four.acquire(), fourElsewhere.acquire(),
                fourElsewhere.acquire()));

        DistributedSemaphore two = fourElsewhere.resize(2);

        for (Lease lease : leases) {
            assertThat(lease.confirm()).as("a holder above the lowered number keeps its permit").isTrue();
        }
        assertThat(two.available()).isZero();
        assertThat(two.inspect().holders()).isEqualTo(4);
        assertThat(two.tryAcquire(1)).isEmpty();
        assertThat(leases.remove(0).release()).isTrue();
        assertThat(two.tryAcquire(1)).as("3 of 2 in use").isEmpty();
        assertThat(leases.remove(0).release()).isTrue();
        assertThat(two.tryAcquire(1)).as("2 of 2 in use").isEmpty();
        assertThat(leases.remove(0).release()).isTrue();
        Lease again = two.tryAcquire(1).orElseThrow();
        assertThat(two.tryAcquire(1)).isEmpty();
        assertThat(two.available()).isZero();
        assertThat(again.fencingToken()).isGreaterThan(leases.get(0).fencingToken());
    }

    @Test
    void aClientThatNamesTheOldNumberWhileInUseFailsWithBothNumbers() throws Exception {
        String name = uniqueName();
        DistributedSemaphore four = client().semaphore(name, 4);
        Lease held = four.acquire();
        four.resize(2);

        assertThatThrownBy(() -> four.tryAcquire(1)).isInstanceOfSatisfying(SemaphorePermitsException.class, e -> {
            assertThat(e.stored()).isEqualTo(2);
            assertThat(e.named()).isEqualTo(4);
            assertThat(e.getMessage()).contains("semaphore '" + name + "'").contains("has 2 permits, not 4")
                    .doesNotContain("Redis answered with an error");
        });
        assertThatThrownBy(four::available).isInstanceOf(SemaphorePermitsException.class)
                .hasMessageContaining("has 2 permits, not 4");
        assertThatThrownBy(() -> four.availableAsync().get(BOUND_SECONDS, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(SemaphorePermitsException.class);
        assertThat(held.confirm()).isTrue();
        assertThat(four.inspect().permits()).as("inspect shows what Redis stores").isEqualTo(2);
    }

    @Test
    void aResizeFromANumberAnotherClientChangedIsRefusedAndChangesNothing() throws Exception {
        String name = uniqueName();
        DistributedSemaphore four = client().semaphore(name, 4);
        Lease held = four.acquire();
        DistributedSemaphore six = client().semaphore(name, 4).resize(6);

        assertThatThrownBy(() -> four.resize(8)).isInstanceOfSatisfying(SemaphorePermitsException.class, e -> {
            assertThat(e.stored()).isEqualTo(6);
            assertThat(e.named()).isEqualTo(4);
        });
        assertThatThrownBy(() -> four.resizeAsync(8).get(BOUND_SECONDS, TimeUnit.SECONDS))
                .hasCauseInstanceOf(SemaphorePermitsException.class);
        assertThat(six.inspect().permits()).isEqualTo(6);
        assertThat(six.available()).isEqualTo(5);
        assertThatThrownBy(() -> six.resize(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("permits must be between 1 and " + LockClient.MAX_PERMITS + ": 0");
        assertThatThrownBy(() -> six.resizeAsync(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> six.resize(LockClient.MAX_PERMITS + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(held.release()).isTrue();
    }

    @Test
    void aSemaphoreNobodyUsesTakesTheNextClientsNumber() throws Exception {
        String name = uniqueName();
        client().semaphore(name, 4).acquire(4).release();
        // The stored number outlives the leases (a day, for the fencing counter), but nothing depends on it now.
        assertThat(client().semaphore(name, 8).available()).isEqualTo(8);
        Lease eight = client().semaphore(name, 8).tryAcquire(8).orElseThrow();
        assertThat(client().semaphore(name, 8).inspect().permits()).isEqualTo(8);
        assertThatThrownBy(() -> client().semaphore(name, 4).tryAcquire(1))
                .isInstanceOf(SemaphorePermitsException.class);

        // A forced release leaves it unused too.
        assertThat(client().semaphore(name, 8).forceRelease()).hasValue(eight.fencingToken());
        Lease three = client().semaphore(name, 3).tryAcquire(3).orElseThrow();
        assertThat(three.fencingToken()).isGreaterThan(eight.fencingToken());
        assertThat(client().semaphore(name, 3).inspect().permits()).isEqualTo(3);
    }

    @Test
    void aWaiterThatNamesTheOldNumberFailsAtItsNextTry() throws Exception {
        String name = uniqueName();
        DistributedSemaphore two = client().semaphore(name, 2);
        Lease held = two.acquire(2);
        CompletableFuture<Lease> waiter = client().semaphore(name, 2).acquireAsync(2);
        assertThat(eventually(Duration.ofSeconds(5), () -> queued(name, 1))).isTrue();

        two.resize(1);
        assertThat(held.release()).isTrue();

        // Its request (2 of what is now 1) can never be granted: it learns so, instead of waiting forever.
        assertThatThrownBy(() -> waiter.get(BOUND_SECONDS, TimeUnit.SECONDS))
                .hasCauseInstanceOf(SemaphorePermitsException.class);
        assertThat(eventually(Duration.ofSeconds(5), () -> queued(name, 0))).isTrue();
        assertThat(client().semaphore(name, 1).tryAcquire(1)).isPresent();
    }

    @Test
    void aHandoverInsideAClientLendsNothingAboveALoweredNumber() throws Exception {
        // A release hands over locally only to a waiter whose place in the queue its client knows; Redis has the
        // place a moment before the client reads the reply, and a release in that moment goes to Redis, where the
        // waiter's next try fails (it names 2 of what is now 1). Both lend nothing above the lowered number; the
        // round is run again until the local handover was the one taken (seen in CI: 1 in a few runs was not).
        int viaRedis = 0;
        for (int round = 0; round < 5; round++) {
            if (handoverInsideAClientAfterALoweredNumber(uniqueName())) {
                return;
            }
            viaRedis++;
        }
        throw new AssertionError("no round of " + viaRedis + " handed over inside the client");
    }

    /** @return true if the release handed over locally (and the waiter lost it), false if it went to Redis */
    private boolean handoverInsideAClientAfterALoweredNumber(String name) throws Exception {
        DistributedSemaphore mine = client().semaphore(name, 2);
        Lease first = mine.acquire();
        Lease second = mine.acquire();
        CompletableFuture<Lease> waiter = mine.acquireAsync(1, Duration.ofSeconds(BOUND_SECONDS));
        assertThat(eventually(Duration.ofSeconds(5), () -> queued(name, 1))).isTrue();
        client().semaphore(name, 2).resize(1);

        assertThat(first.release()).isTrue();

        boolean local;
        try {
            // Released with 2 of 1 in use, the permit goes to nobody: a waiter that took it over locally loses it.
            Lease taken = waiter.get(BOUND_SECONDS, TimeUnit.SECONDS);
            CountDownLatch lost = new CountDownLatch(1);
            taken.onLost(lost::countDown);
            assertThat(lost.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(taken.isHeld()).isFalse();
            local = true;
        } catch (ExecutionException e) {
            assertThat(e).hasCauseInstanceOf(SemaphorePermitsException.class);
            local = false;
        }
        assertThat(second.confirm()).isTrue();
        assertThat(client().semaphore(name, 1).inspect().holders()).isEqualTo(1);
        assertThat(client().semaphore(name, 1).tryAcquire(1)).isEmpty();
        assertThat(second.release()).isTrue();
        assertThat(client().semaphore(name, 1).tryAcquire(1)).isPresent();
        return local;
    }
}
