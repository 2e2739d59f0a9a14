package dev.warden.internal.lease;

import dev.warden.Ticker;
import dev.warden.internal.base.Events;
import dev.warden.internal.script.LockKeys;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LeaseBaseTest {
    private final AtomicInteger callbacks = new AtomicInteger();
    private final TestLease lease = new TestLease();

    @Test
    void watchdogVerdictOnAHeldLeaseMarksItLostOnce() {
        lease.onLost(callbacks::incrementAndGet);
        lease.loseUnlessReleasing("renewal found it gone");
        lease.loseUnlessReleasing("renewal found it gone");
        assertEquals(1, callbacks.get());
        assertEquals(1, lease.losses);
        assertFalse(lease.isHeld());
        assertFalse(lease.beginRelease());
    }

    @Test
    void watchdogVerdictDuringAReleaseIsLeftToTheRelease() {
        lease.onLost(callbacks::incrementAndGet);
        assertTrue(lease.beginRelease());
        lease.loseUnlessReleasing("renewal found it released");
        assertEquals(0, callbacks.get());
        lease.released();
        lease.loseUnlessReleasing("renewal found it released");
        assertEquals(0, callbacks.get());
        assertEquals(0, lease.losses);
    }

    @Test
    void releaseThatFindsTheLockGoneMarksItLost() {
        lease.onLost(callbacks::incrementAndGet);
        assertTrue(lease.beginRelease());
        lease.lose("found taken on release");
        assertEquals(1, callbacks.get());
        assertEquals(1, lease.losses);
    }

    /** A lease with no Redis behind it: callbacks run on the calling thread. */
    private static final class TestLease extends LeaseBase {
        int losses;

        TestLease() {
            // A fixed lease of about eleven days, granted at time 0 on a clock that stays there.
            super(1_000_000_000L, false, 0, 1_000_000_000L);
        }

        @Override
        public java.util.concurrent.CompletableFuture<Boolean> releaseRequest() {
            return java.util.concurrent.CompletableFuture.completedFuture(beginRelease());
        }

        @Override
        public java.util.concurrent.CompletableFuture<Boolean> heldRequest() {
            return java.util.concurrent.CompletableFuture.completedFuture(true);
        }

        @Override
        public java.util.concurrent.CompletableFuture<Boolean> expireRequest(long millis, String operation) {
            return java.util.concurrent.CompletableFuture.completedFuture(true);
        }

        @Override
        public void moveDeadline(long sentAt, long millis) {
        }

        @Override
        public java.util.concurrent.CompletableFuture<Boolean> releaseKeepingRequest(long keepMillis) {
            return releaseRequest();
        }

        @Override
        public <T> T await(java.util.concurrent.CompletableFuture<T> future, String operation) {
            return future.join();
        }

        @Override
        public <T> java.util.concurrent.CompletableFuture<T> publish(
                java.util.function.Supplier<java.util.concurrent.CompletableFuture<T>> request, String operation) {
            return request.get();
        }

        @Override
        public java.util.concurrent.CompletableFuture<Long> fencingTokenAsync() {
            return java.util.concurrent.CompletableFuture.completedFuture(1L);
        }

        @Override
        public LockKeys keys() {
            return LockKeys.of("test:", "test");
        }

        @Override
        public String token() {
            return "token";
        }

        @Override
        public java.util.concurrent.CompletableFuture<Boolean> abandon() {
            return java.util.concurrent.CompletableFuture.completedFuture(false);
        }

        @Override
        public Context context() {
            throw new UnsupportedOperationException("a test lease has no client");
        }

        @Override
        public String describe(String operation) {
            return operation + " of a test lease";
        }

        @Override
        public Ticker ticker() {
            return () -> 0L;
        }

        @Override
        public Events events() {
            return Events.start(null, ticker(), "unused");
        }

        @Override
        public void runCallback(Runnable callback) {
            callback.run();
        }

        @Override
        public void afterLoss() {
            losses++;
        }

        @Override
        public String lockName() {
            return "test";
        }

        @Override
        public long fencingToken() {
            return 1;
        }

        @Override
        public long knownFence() {
            return 1;
        }

        @Override
        public int acknowledgements() {
            return 0;
        }

        @Override
        public boolean release() {
            return beginRelease();
        }
    }
}
