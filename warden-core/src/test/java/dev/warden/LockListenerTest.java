package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link LockListener}: what it is told, and that it cannot slow, stall or break a lock. */
@Timeout(60)
class LockListenerTest extends RedisTestSupport {
    /** Records every event, in order, for a test to take them one by one. */
    private static final class Recorder implements LockListener {
        final BlockingQueue<Object> events = new LinkedBlockingQueue<>();

        @Override
        public void onAcquire(Acquire event) {
            events.add(event);
        }

        @Override
        public void onWaiting(String lock) {
            events.add("waiting " + lock);
        }

        @Override
        public void onRelease(Release event) {
            events.add(event);
        }

        @Override
        public void onLost(Loss event) {
            events.add(event);
        }

        @Override
        public void onRenewal(Renewal event) {
            events.add(event);
        }

        /** The next event that is not a renewal (those come on the watchdog's schedule). */
        Object next() throws InterruptedException {
            while (true) {
                Object event = events.poll(5, TimeUnit.SECONDS);
                assertThat(event).as("an event within 5 s").isNotNull();
                if (!(event instanceof Renewal)) {
                    return event;
                }
            }
        }

        <T> T next(Class<T> type) throws InterruptedException {
            Object event = next();
            assertThat(event).isInstanceOf(type);
            return type.cast(event);
        }
    }

    @Test
    void acquireWaitReleaseAndNotAcquiredAreReportedWithTheirDurations() throws InterruptedException {
        Recorder recorder = new Recorder();
        LockClient client = client(b -> b.listener(recorder));
        String name = uniqueName();
        DistributedLock lock = client.lock(name);

        Lease first = lock.tryAcquire().orElseThrow();
        LockListener.Acquire acquired = recorder.next(LockListener.Acquire.class);
        assertThat(acquired.lock()).isEqualTo(name);
        assertThat(acquired.outcome()).isEqualTo(LockListener.Outcome.ACQUIRED);
        assertThat(acquired.queued()).isFalse();
        assertThat(acquired.error()).isNull();

        assertThat(lock.tryAcquire()).isEmpty();
        LockListener.Acquire refused = recorder.next(LockListener.Acquire.class);
        assertThat(refused.outcome()).isEqualTo(LockListener.Outcome.NOT_ACQUIRED);
        assertThat(refused.queued()).isFalse();

        Thread waiter = new Thread(() -> {
            try {
                lock.tryAcquire(Duration.ofSeconds(10)).orElseThrow().release();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        waiter.start();
        assertThat(recorder.next()).isEqualTo("waiting " + name);
        // The test's intent: the hold and the wait last at least 200 ms, which the events must report.
        Thread.sleep(200);
        assertThat(first.release()).isTrue();
        waiter.join(10_000);
        // The holder's release and the waiter's acquire race to the queue; sort them.
        List<Object> three = List.of(recorder.next(), recorder.next(), recorder.next());
        // The longer of the two releases is the first holder's; the waiter released at once.
        LockListener.Release released = three.stream().filter(LockListener.Release.class::isInstance)
                .map(LockListener.Release.class::cast).max((a, b) -> a.held().compareTo(b.held())).orElseThrow();
        assertThat(released.held()).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        LockListener.Acquire waited = three.stream().filter(LockListener.Acquire.class::isInstance)
                .map(LockListener.Acquire.class::cast).findFirst().orElseThrow();
        assertThat(waited.outcome()).isEqualTo(LockListener.Outcome.ACQUIRED);
        assertThat(waited.queued()).isTrue();
        assertThat(waited.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        assertThat(three.stream().filter(LockListener.Release.class::isInstance).count()).isEqualTo(2);

        // A second release of a released lease reports nothing more.
        assertThat(first.release()).isFalse();
        Lease again = lock.tryAcquire().orElseThrow();
        assertThat(recorder.next(LockListener.Acquire.class).outcome()).isEqualTo(LockListener.Outcome.ACQUIRED);
        again.release();
        assertThat(recorder.next()).isInstanceOf(LockListener.Release.class);
    }

    @Test
    void lossesAreReportedByCause() throws InterruptedException {
        Recorder recorder = new Recorder();
        LockClient client = client(b -> b.listener(recorder).defaultLease(Duration.ofMillis(600)));
        String gone = uniqueName();
        client.lock(gone).tryAcquire().orElseThrow();
        recorder.next(LockListener.Acquire.class);
        server.call("DEL", "test:{" + gone + "}");
        LockListener.Loss loss = recorder.next(LockListener.Loss.class);
        assertThat(loss.lock()).isEqualTo(gone);
        assertThat(loss.cause()).isEqualTo(LockListener.Cause.NOT_IN_REDIS);
        assertThat(loss.detail()).contains("renewal");

        String fixed = uniqueName();
        client.lock(fixed).tryAcquire(Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
        recorder.next(LockListener.Acquire.class);
        LockListener.Loss ranOut = recorder.next(LockListener.Loss.class);
        assertThat(ranOut.lock()).isEqualTo(fixed);
        assertThat(ranOut.cause()).isEqualTo(LockListener.Cause.RAN_OUT);
        assertThat(ranOut.held()).isGreaterThanOrEqualTo(Duration.ofMillis(250));
    }

    @Test
    void renewalsAndFailuresAreReported() throws InterruptedException {
        Recorder recorder = new Recorder();
        LockClient client = client(b -> b.listener(recorder).defaultLease(Duration.ofMillis(600)));
        Lease lease = client.lock(uniqueName()).tryAcquire().orElseThrow();
        LockListener.Renewal renewal = null;
        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (renewal == null && System.nanoTime() < bound) {
            Object event = recorder.events.poll(1, TimeUnit.SECONDS);
            renewal = event instanceof LockListener.Renewal r ? r : null;
        }
        assertThat(renewal).as("a renewal within 5 s").isNotNull();
        assertThat(renewal.leases()).isEqualTo(1);
        assertThat(renewal.error()).isNull();
        assertThat(renewal.roundTrip()).isLessThan(Duration.ofSeconds(2));
        assertThat(lease.release()).isTrue();
        assertThat(recorder.next()).isInstanceOf(LockListener.Release.class);

        // A key of another type: the acquire fails, and the listener is told with the exception.
        String name = uniqueName();
        server.call("HSET", "test:{" + name + "}", "a", "b");
        assertThatThrownBy(() -> client.lock(name).tryAcquire()).isInstanceOf(LockException.class);
        LockListener.Acquire failed = recorder.next(LockListener.Acquire.class);
        assertThat(failed.outcome()).isEqualTo(LockListener.Outcome.FAILED);
        assertThat(failed.error()).isInstanceOf(LockException.class);
    }

    @Test
    void aListenerThatThrowsBreaksNothingAndHearsTheNextEvent() throws InterruptedException {
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch releases = new CountDownLatch(2);
        LockClient client = client(b -> b.listener(new LockListener() {
            @Override
            public void onAcquire(Acquire event) {
                calls.incrementAndGet();
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void onRelease(Release event) {
                releases.countDown();
                throw new IllegalStateException("listener bug");
            }
        }));
        DistributedLock lock = client.lock(uniqueName());
        for (int i = 0; i < 2; i++) {
            Lease lease = lock.tryAcquire().orElseThrow();
            assertThat(lease.isHeld()).isTrue();
            assertThat(lease.release()).isTrue();
        }
        assertThat(releases.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(calls.get()).isEqualTo(2);
    }

    @Test
    void aListenerThatBlocksStallsNoLockAndNoClose() throws InterruptedException {
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger delivered = new AtomicInteger();
        LockClient client = LockClient.create(LockConfig.builder().redisUri(server.uri()).keyPrefix("test:")
                .listener(new LockListener() {
                    @Override
                    public void onAcquire(Acquire event) {
                        delivered.incrementAndGet();
                        try {
                            never.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }).build());
        try {
            DistributedLock lock = client.lock(uniqueName());
            // Twice the events the queue keeps: the listener holds the first, the queue fills, the rest drop.
            long start = System.nanoTime();
            for (int i = 0; i < 10_000; i++) {
                Optional<Lease> lease = lock.tryAcquire();
                assertThat(lease).isPresent();
                assertThat(lease.get().release()).isTrue();
            }
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            assertThat(seconds).as("10,000 lock+unlock with a stuck listener").isLessThan(30);
            assertThat(delivered.get()).isEqualTo(1);
        } finally {
            long closing = System.nanoTime();
            client.close();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing)).isLessThan(5_000);
        }
    }
}
