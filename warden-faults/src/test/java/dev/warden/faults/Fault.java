package dev.warden.faults;

/** A fault a run can inject. */
enum Fault {
    /** A worker JVM is stopped (SIGSTOP) for twice the lease, like a long GC pause, then continued. */
    CLIENT_STALL,
    /** The lock server is stopped (SIGSTOP) for 1.5 leases, then continued. */
    SERVER_PAUSE,
    /** The lock server is killed and restarted with all its data lost. */
    SERVER_RESTART,
    /** Every client connection is killed from the server side, and the script cache is flushed. */
    CONNECTION_KILL,
    /** The lock server answers late: DEBUG SLEEP of 0.3 s in a side connection. */
    LATENCY,
    /** Sentinel: the master is killed, a replica promoted, and the old master returns empty as a replica. */
    FAILOVER,
    /** Cluster: the slot of a lock name moves to another node, keys and all. */
    SLOT_MIGRATION,
    /**
     * Cluster with replicas: {@code CLUSTER FAILOVER} on the replica of a lock name's master, which waits for the
     * replica to catch up before it takes over; the old master follows it.
     */
    CLUSTER_FAILOVER,
    /**
     * Cluster with replicas: the master of a lock name's slot is killed (SIGKILL); the cluster fails over to its
     * replica after the node timeout (2 s), and the killed node comes back empty as the new master's replica.
     */
    MASTER_KILL,
    /**
     * The worker that last took a lock is cut off from the lock server for twice the lease: its proxy holds every
     * byte back, both ways, without closing a connection (a half-open partition). In turn the partition heals, and
     * what was held back is delivered, or ends with a reset of the worker's connections.
     */
    CLIENT_PARTITION,
    /** A worker's pub/sub connection alone is cut off the same way for twice the lease, then heals. */
    PUBSUB_PARTITION,
    /**
     * Requests and replies are delayed 0.3-0.8 s each way, a round trip beyond the workers' 0.5 s command timeout,
     * for 1.5 leases: in turn for the worker that last took a lock, and for every worker.
     */
    NETWORK_LATENCY,
    /**
     * An administrator's forceRelease, from the test JVM: a worker that holds a lock is told to stretch its holds
     * (a long job), the lock it holds is forced free, and the administrator takes it for 0.3 s (a full holder,
     * fenced writes and all) and tells the worker to end its holds while it holds it: the forced holder's reentrant
     * acquires and release come while another holds the lock.
     */
    FORCE_RELEASE,
    /**
     * A family run's forceRelease of one kind of holder alone, in turn: the readers of a read-write lock
     * ({@code readLock().forceRelease()}), its writer ({@code writeLock().forceRelease()}), or a semaphore's permits
     * (its {@code forceRelease()}: the API forces every permit of a semaphore at once, none alone). As for
     * {@link #FORCE_RELEASE}, the forced holder's hold is stretched, and the administrator then takes the write
     * lock, or a permit.
     */
    FORCE_HALF,
    /**
     * A worker closes its client mid-flight, while its threads acquire and hold ({@code CLOSE} on its standard
     * input), then opens another and goes on.
     */
    CLIENT_CLOSE;

    /** @return whether the fault hits the network between workers and lock server, through a proxy per worker */
    boolean network() {
        return this == CLIENT_PARTITION || this == PUBSUB_PARTITION || this == NETWORK_LATENCY;
    }
}
