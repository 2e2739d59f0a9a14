package dev.warden.faults;

import dev.warden.Lease;
import dev.warden.LockClient;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/** Warden: renewed leases (in the default or fair mode), or fixed leases that expire when a hold outlasts them. */
final class WardenLocks implements LocksUnderTest {
    private final LockClient client;
    private final Duration lease;
    private final boolean renewed;

    /**
     * @param spec the lock servers, as {@link LockTarget#spec()} gives them
     */
    WardenLocks(String spec, Duration lease, boolean renewed, boolean fair) {
        this.client = LockClient.create(LockTarget.configure(spec)
                .defaultLease(lease).commandTimeout(Duration.ofMillis(500)).fair(fair).build());
        this.lease = lease;
        this.renewed = renewed;
    }

    @Override
    public Held acquire(String name, Duration wait) throws InterruptedException {
        Optional<Lease> got = renewed ? client.lock(name).tryAcquire(wait) : client.lock(name).tryAcquire(wait, lease);
        if (got.isEmpty()) {
            return null;
        }
        return held(got.get());
    }

    /** A Warden lease as the fault suite holds it: its token, validity, release and when it was reported lost. */
    static Held held(Lease held) {
        AtomicLong lostAt = new AtomicLong(-1);
        held.onLost(() -> lostAt.compareAndSet(-1, System.nanoTime()));
        return new Held() {
            @Override
            public long fence() {
                return held.fencingToken();
            }

            @Override
            public long validUntil() {
                long now = System.nanoTime();
                long left = held.remaining().toNanos();
                return held.isHeld() && left > 0 ? now + left : -1;
            }

            @Override
            public boolean release() {
                return held.release();
            }

            @Override
            public long lostAt() {
                return lostAt.get();
            }
        };
    }

    @Override
    public void close() {
        client.close();
    }
}
