package dev.warden.spring;

import dev.warden.LockConfig;

/** Applies {@link WardenProperties} to a {@link LockConfig.Builder}: only what was set, so defaults stay Warden's. */
final class WardenConfigs {
    private WardenConfigs() {
    }

    static void apply(WardenProperties p, SpringRedisSettings.Target spring, LockConfig.Builder b) {
        if (p.getRedisUri() != null) {
            b.redisUri(p.getRedisUri());
        } else if (!p.getCluster().isEmpty()) {
            b.cluster(p.getCluster().toArray(String[]::new));
        } else if (!p.getQuorum().isEmpty()) {
            b.quorum(p.getQuorum().toArray(String[]::new));
        } else if (spring.redisUri() != null) {
            b.redisUri(spring.redisUri());
        } else {
            b.cluster(spring.clusterSeeds().toArray(String[]::new));
        }
        if (p.getReplicaAcks() > 0) {
            b.replicaAcks(p.getReplicaAcks(), p.getReplicaAckTimeout());
        }
        b.fair(p.isFair());
        if (p.getKeyPrefix() != null) {
            b.keyPrefix(p.getKeyPrefix());
        }
        if (p.getDefaultLease() != null) {
            b.defaultLease(p.getDefaultLease());
        }
        if (p.getCommandTimeout() != null) {
            b.commandTimeout(p.getCommandTimeout());
        }
        if (p.getClientName() != null) {
            b.clientName(p.getClientName());
        }
        if (p.getSpinWait() != null) {
            b.spinWait(p.getSpinWait());
        }
    }
}
