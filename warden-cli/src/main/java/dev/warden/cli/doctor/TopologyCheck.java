package dev.warden.cli.doctor;

import java.util.List;
import java.util.Optional;

/** What kind of server the doctor reached ({@code redis_mode}, {@code role}) and what Warden needs there. */
final class TopologyCheck implements Check {
    static final String CODE = "TOPOLOGY";

    @Override
    public List<String> codes() {
        return List.of(CODE);
    }

    @Override
    public boolean onSentinel() {
        return true;
    }

    @Override
    public List<Finding> run(DoctorProbe probe) {
        if (!probe.infoReply().ok()) {
            return List.of(Finding.unchecked(CODE, probe.infoFailure(), "the doctor cannot tell a master from a "
                    + "replica, nor Cluster or Sentinel", "allow INFO for this user"));
        }
        return List.of(evaluate(probe.mode(), probe.role(), probe.options().sentinelMaster()));
    }

    /**
     * @param mode           INFO's {@code redis_mode}: standalone, cluster or sentinel
     * @param role           INFO's {@code role}: master or slave
     * @param sentinelMaster the master's name when the URI was {@code redis-sentinel://}, else empty
     * @return the finding
     */
    static Finding evaluate(String mode, String role, Optional<String> sentinelMaster) {
        String observed = "redis_mode " + mode + ", role " + role
                + sentinelMaster.map(name -> ", master '" + name + "' named by Sentinel").orElse("");
        if (mode.equals("sentinel")) {
            return Finding.unsafe(CODE, observed, "this is a Sentinel, not a data server: Warden's scripts cannot "
                    + "run here", "give the Sentinel URI instead: redis-sentinel://HOST:PORT[,HOST:PORT]#MASTER");
        }
        if (!role.equals("master")) {
            return Finding.unsafe(CODE, observed, "this is a replica: writes answer READONLY, so every acquire "
                    + "fails (and with replica-read-only no, locks written here are invisible to the master's "
                    + "clients and lost at the next sync)", "point --redis at the master, or use a "
                    + "redis-sentinel:// URI so that clients follow the master");
        }
        if (mode.equals("cluster")) {
            return Finding.warn(CODE, observed, "a Redis Cluster node: clients must use cluster mode "
                    + "(LockConfig.cluster(seed URIs)), which routes each lock by its hash tag; replica "
                    + "acknowledgements are counted by each lock's master. The doctor checked this node only",
                    "run warden doctor against every master of the cluster");
        }
        if (sentinelMaster.isPresent()) {
            return Finding.ok(CODE, observed, "a master managed by Sentinel: clients that use the redis-sentinel:// "
                    + "URI follow a failover. Whether a failover can lose a lock depends on replica "
                    + "acknowledgements (see REPLICATION)");
        }
        return Finding.ok(CODE, observed, "a standalone master: locks live on this one server");
    }
}
