package dev.warden;

/**
 * Fewer replicas acknowledged a grant than the lock requires ({@link LockConfig#replicaAcks()},
 * {@link DistributedLock#withReplicaAcks}). The lock was released again, since a failover could hand it out a
 * second time: no lease was granted (fail closed). Retrying is safe.
 */
public class LockReplicationException extends LockException {
    private static final long serialVersionUID = 1L;

    private final int acknowledged;
    private final int required;

    /**
     * Creates an exception.
     *
     * @param message      what failed
     * @param acknowledged how many replicas acknowledged
     * @param required     how many were required
     */
    public LockReplicationException(String message, int acknowledged, int required) {
        super(message, null);
        this.acknowledged = acknowledged;
        this.required = required;
    }

    /** @return how many replicas acknowledged the grant */
    public int acknowledged() {
        return acknowledged;
    }

    /** @return how many replicas the lock required */
    public int required() {
        return required;
    }
}
