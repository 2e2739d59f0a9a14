package dev.warden.faults;

import dev.warden.Lease;
import dev.warden.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A mutant for the checker: a multi-lock whose "not acquired" comes back before its give-back finished, as
 * Warden's did before issue #39. Parts are taken one by one in name order; on a miss, the parts already held are
 * released by a background thread a few milliseconds after the empty result.
 */
final class BackgroundMultiLock {
    /** How long after the empty result the parts are given back: "a few ms", as the old give-back took. */
    static final long GIVE_BACK_DELAY_MS = 5;

    private static final ScheduledExecutorService GIVE_BACK = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "background-give-back");
        thread.setDaemon(true);
        return thread;
    });

    private BackgroundMultiLock() {
    }

    /** @return the hold of every part, or null (with held parts still held for a few ms) */
    static LocksUnderTest.Held acquire(LockClient client, List<String> names, Duration wait)
            throws InterruptedException {
        List<String> sorted = new ArrayList<>(names);
        sorted.sort(null);
        long deadline = System.nanoTime() + wait.toNanos();
        List<Lease> held = new ArrayList<>();
        for (String name : sorted) {
            Optional<Lease> got = client.lock(name).tryAcquire(Duration.ofNanos(Math.max(0,
                    deadline - System.nanoTime())));
            if (got.isEmpty()) {
                List<Lease> giveBack = List.copyOf(held);
                GIVE_BACK.schedule(() -> giveBack.forEach(Lease::close), GIVE_BACK_DELAY_MS, TimeUnit.MILLISECONDS);
                return null;
            }
            held.add(got.get());
        }
        AtomicLong lostAt = new AtomicLong(-1);
        held.forEach(lease -> lease.onLost(() -> lostAt.compareAndSet(-1, System.nanoTime())));
        return new LocksUnderTest.Held() {
            @Override
            public long fence() {
                throw new UnsupportedOperationException("one token per part");
            }

            @Override
            public long fence(String part) {
                return held.get(sorted.indexOf(part)).fencingToken();
            }

            @Override
            public List<String> names() {
                return sorted;
            }

            @Override
            public long validUntil() {
                long now = System.nanoTime();
                long until = Long.MAX_VALUE;
                for (Lease lease : held) {
                    long left = lease.remaining().toNanos();
                    if (!lease.isHeld() || left <= 0) {
                        return -1;
                    }
                    until = Math.min(until, now + left);
                }
                return until;
            }

            @Override
            public boolean release() {
                boolean all = true;
                for (Lease lease : held) {
                    all &= lease.release();
                }
                return all;
            }

            @Override
            public long lostAt() {
                return lostAt.get();
            }
        };
    }
}
