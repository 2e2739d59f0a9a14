package dev.warden.bench;

import dev.warden.Leadership;
import dev.warden.LeadershipListener;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.Term;
import java.time.Duration;

/**
 * Warden's {@link LockClient#leadership}: a candidate queued on the election's lock, elected by the release or
 * expiry of the leader's lease, with a client of its own whose default lease is the given one.
 */
final class WardenCandidate extends SignalledCandidate {
    private final LockClient client;
    private final Leadership leadership;
    private final Duration lease;

    WardenCandidate(String uri, String election, Duration lease) {
        this.lease = lease;
        this.client = LockClient.create(LockConfig.builder().redisUri(uri).defaultLease(lease)
                .keyPrefix("bench:leader:").build());
        this.leadership = client.leadership(election, new LeadershipListener() {
            @Override
            public void elected(Term term) {
                signal.elected();
            }

            @Override
            public void revoked(Term term, Leadership.Revocation why) {
                // Only elections are timed; a revocation is what the bench itself caused.
            }

            @Override
            public void failed(Throwable error, Duration retryIn) {
                signal.failed(error);
            }
        });
    }

    /** Steps down; the candidate joins again by itself, behind the one waiting. */
    @Override
    public void yieldLeadership() {
        if (!leadership.stepDown()) {
            throw new IllegalStateException("the Warden candidate asked to step down did not lead");
        }
    }

    @Override
    public void rejoin() {
        // stepDown() joins again by itself.
    }

    @Override
    public Duration lease() {
        return lease;
    }

    @Override
    public void close() {
        leadership.close();
        client.close();
    }
}
