package dev.warden.micrometer;

import dev.warden.DistributedMultiLock;
import dev.warden.MultiLease;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/** A multi-lock whose acquire calls are observations, named by its locks' names joined with commas. */
final class ObservedMultiLock extends Observed<MultiLease, DistributedMultiLock> implements DistributedMultiLock {
    ObservedMultiLock(DistributedMultiLock lock, ObservationRegistry registry, Function<String, String> lockTag) {
        super(lock, registry, lockTag);
    }

    @Override
    public List<String> names() {
        return lock.names();
    }

    @Override
    public DistributedMultiLock withReplicaAcks(int replicas, Duration timeout) {
        return new ObservedMultiLock(lock.withReplicaAcks(replicas, timeout), registry, lockTag);
    }
}
