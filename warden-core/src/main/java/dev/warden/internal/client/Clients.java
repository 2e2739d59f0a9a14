package dev.warden.internal.client;

import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockException;
import java.util.Objects;

/** Where {@link LockClient#create(LockConfig)} turns a configuration into the client of its topology. Not API. */
public final class Clients {
    private Clients() {
    }

    /**
     * Connects and creates a client for the configuration's topology: a quorum of independent servers, or one
     * deployment (a server, a Sentinel-managed master, a cluster).
     *
     * @param config the configuration
     * @return the client
     * @throws NullPointerException if {@code config} is null
     * @throws LockException        if Redis cannot be reached or refuses the connection
     */
    public static LockClient open(LockConfig config) {
        Objects.requireNonNull(config, "config");
        return config.topology() == LockConfig.Topology.QUORUM
                ? QuorumLockClient.connect(config)
                : RedisLockClient.connect(config);
    }
}
