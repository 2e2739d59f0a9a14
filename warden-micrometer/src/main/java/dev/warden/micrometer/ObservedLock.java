package dev.warden.micrometer;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.function.Function;

/** A lock whose acquire calls are observations; every other call goes straight to the lock it wraps. */
final class ObservedLock extends Observed<Lease, DistributedLock> implements DistributedLock {
    ObservedLock(DistributedLock lock, ObservationRegistry registry, Function<String, String> lockTag) {
        super(lock, registry, lockTag);
    }

    @Override
    public DistributedLock withReplicaAcks(int replicas, Duration timeout) {
        return new ObservedLock(lock.withReplicaAcks(replicas, timeout), registry, lockTag);
    }
}
