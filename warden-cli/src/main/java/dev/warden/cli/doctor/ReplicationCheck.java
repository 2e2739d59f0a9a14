package dev.warden.cli.doctor;

import java.util.List;

/** Whether a failover can lose a lock: replicas attached to the master against the acknowledgements required. */
final class ReplicationCheck implements Check {
    static final String CODE = "REPLICATION";

    @Override
    public List<String> codes() {
        return List.of(CODE);
    }

    @Override
    public List<Finding> run(DoctorProbe probe) {
        if (!probe.infoReply().ok()) {
            return List.of(Finding.unchecked(CODE, probe.infoFailure(), "the doctor cannot see the replicas, so it "
                    + "cannot tell whether a failover can lose a lock", "allow INFO for this user"));
        }
        return List.of(evaluate(probe.role(), probe.cluster(), probe.info().number("connected_slaves", 0),
                probe.options().replicaAcks()));
    }

    /**
     * @param role        INFO's {@code role}
     * @param cluster     whether the server runs in cluster mode: judged as any master, since acknowledgements are
     *                    counted by the master of each lock's slot
     * @param replicas    INFO's {@code connected_slaves}
     * @param replicaAcks the acknowledgements the user's clients require ({@code --replica-acks})
     * @return the finding
     */
    static Finding evaluate(String role, boolean cluster, long replicas, int replicaAcks) {
        String observed = "connected replicas " + replicas + ", replica acknowledgements required " + replicaAcks;
        if (!role.equals("master")) {
            return Finding.unchecked(CODE, "role " + role + ": not a master", "replication is judged on the master",
                    "run warden doctor against the master");
        }
        String lost = "a failover (Sentinel, Cluster, or a manual REPLICAOF) can promote a replica that had not "
                + "yet received a grant: the lock is then granted again while its holder still runs. Fencing tokens "
                + "protect a resource that checks them, but two holders can run at once";
        if (replicas == 0 && replicaAcks == 0) {
            return Finding.ok(CODE, observed, "no replicas: no failover can lose a lock (a restart can: see "
                    + "PERSISTENCE)");
        }
        if (replicaAcks > replicas) {
            return Finding.unsafe(CODE, observed, "fewer replicas are connected than your clients require: every "
                    + "acquire fails closed (LockReplicationException) and no lease is renewed",
                    "attach the replicas, or lower replicaAcks to the replicas that are connected");
        }
        if (replicaAcks == 0) {
            return Finding.unsafe(CODE, observed, lost, "require acknowledgements from every replica that can be "
                    + "promoted: LockConfig.replicaAcks(" + replicas + ", timeout) in your clients (then run "
                    + "warden doctor --replica-acks " + replicas + ")" + (cluster ? "; in a cluster, from every "
                    + "master's replicas: give each master as many" : ""));
        }
        if (replicaAcks < replicas) {
            return Finding.warn(CODE, observed, "WAIT counts replicas that received a grant, not the one that will "
                    + "be promoted: Sentinel may promote a replica that missed it",
                    "require as many acknowledgements as replicas that can be promoted (" + replicas
                            + ", less those with replica-priority 0)");
        }
        return Finding.ok(CODE, observed, "every grant and renewal reaches every replica (" + replicas + ") before it "
                + "counts: a promoted replica has the lock");
    }
}
