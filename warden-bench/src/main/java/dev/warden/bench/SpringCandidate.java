package dev.warden.bench;

import java.time.Duration;
import java.util.UUID;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's {@link LockRegistryLeaderInitiator} over a {@link RedisLockRegistry} of its own (its own
 * Lettuce connection), with the initiator's defaults: every candidate calls {@code tryLock} with a 500 ms heartbeat,
 * and a follower tries again 50 ms after a failed try (the registry's spin lock retries every 100 ms within it); the
 * leader's {@code tryLock} each heartbeat sets the lock's expiry anew. The registry's expiry is the given lease
 * (its default is 60 s).
 */
final class SpringCandidate extends SignalledCandidate {
    private final LettuceConnectionFactory factory;
    private final RedisLockRegistry registry;
    private final LockRegistryLeaderInitiator initiator;
    private final Duration lease;

    SpringCandidate(String uri, String election, Duration lease) {
        this.lease = lease;
        this.factory = SpringContender.connectionFactory(uri);
        this.registry = new RedisLockRegistry(factory, "bench:leader", lease);
        this.initiator = new LockRegistryLeaderInitiator(registry,
                new DefaultCandidate(UUID.randomUUID().toString(), election) {
                    @Override
                    public void onGranted(Context context) {
                        signal.elected();
                    }
                });
        initiator.start();
    }

    /**
     * Stops the initiator, which unlocks on its own thread. Not {@code context.yield()}: the yielding initiator
     * tries again after its 50 ms busy wait and may win again, so that no other candidate need be elected.
     */
    @Override
    public void yieldLeadership() {
        initiator.stop();
    }

    @Override
    public void rejoin() {
        initiator.start();
    }

    @Override
    public Duration lease() {
        return lease;
    }

    @Override
    public void close() {
        initiator.destroy();
        registry.destroy();
        factory.destroy();
    }
}
