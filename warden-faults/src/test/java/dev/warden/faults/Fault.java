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
    SLOT_MIGRATION
}
