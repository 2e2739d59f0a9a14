package dev.warden.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code warden.*} properties: every {@link dev.warden.LockConfig} setting, with Spring's duration format
 * ({@code 30s}, {@code 500ms}, {@code PT30S}). A setting left out keeps {@code LockConfig}'s default. Without
 * {@code warden.redis-uri}, {@code warden.cluster} or {@code warden.quorum}, the client connects where Spring
 * Boot's {@code spring.data.redis.*} settings point (URL, host and port, credentials, database, SSL, Sentinel or
 * Cluster), and to {@code redis://localhost:6379} if there are none.
 */
@ConfigurationProperties("warden")
public class WardenProperties {
    /** One Redis server, or a Sentinel master ({@code redis-sentinel://h1:p1,h2:p2#master}). */
    private String redisUri;
    /** Seed URIs of a Redis Cluster. */
    private List<String> cluster = new ArrayList<>();
    /** Three or more independent masters for a quorum lock (Redlock). */
    private List<String> quorum = new ArrayList<>();
    /** How many replicas must acknowledge every grant and renewal; 0 for none. */
    private int replicaAcks;
    /** How long to wait for the replicas' acknowledgements. */
    private Duration replicaAckTimeout = Duration.ofMillis(500);
    /** Grant each lock to its waiters in the order they came, across clients. */
    private boolean fair;
    /** The prefix of every key. */
    private String keyPrefix;
    /** The lease of acquires that give none, renewed every third of it. */
    private Duration defaultLease;
    /** How long a Redis command may take before it fails. */
    private Duration commandTimeout;
    /** The client's name, shown by CLIENT LIST and in thread names. */
    private String clientName;
    /** How long a blocked call may spin for its reply before it parks. */
    private Duration spinWait;
    private final Metrics metrics = new Metrics();
    private final Leadership leadership = new Leadership();

    /**
     * {@code warden.leadership.*}: Spring Integration's leader election on the client, when
     * {@code warden-spring-integration} (with Spring Integration) is on the class path.
     */
    public static class Leadership {
        /**
         * The role to run for: a WardenLeaderInitiator bean joins the election of that name and publishes Spring
         * Integration's OnGrantedEvent and OnRevokedEvent. None if unset.
         */
        private String role;

        public String getRole() {
            return role;
        }

        public void setRole(String role) {
            this.role = role;
        }
    }

    /** {@code warden.metrics.*}: what the Micrometer integration records, when Micrometer is present. */
    public static class Metrics {
        /** Record metrics of the client's locks in the application's MeterRegistry. */
        private boolean enabled = true;
        /** Observe each acquire call (a span in traces) when an ObservationRegistry is present. */
        private boolean observations = true;
        /** Tag per-lock meters with the lock's name; turn off when names are unbounded. */
        private boolean lockTag = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isObservations() {
            return observations;
        }

        public void setObservations(boolean observations) {
            this.observations = observations;
        }

        public boolean isLockTag() {
            return lockTag;
        }

        public void setLockTag(boolean lockTag) {
            this.lockTag = lockTag;
        }
    }

    public String getRedisUri() {
        return redisUri;
    }

    public void setRedisUri(String redisUri) {
        this.redisUri = redisUri;
    }

    public List<String> getCluster() {
        return cluster;
    }

    public void setCluster(List<String> cluster) {
        this.cluster = cluster;
    }

    public List<String> getQuorum() {
        return quorum;
    }

    public void setQuorum(List<String> quorum) {
        this.quorum = quorum;
    }

    public int getReplicaAcks() {
        return replicaAcks;
    }

    public void setReplicaAcks(int replicaAcks) {
        this.replicaAcks = replicaAcks;
    }

    public Duration getReplicaAckTimeout() {
        return replicaAckTimeout;
    }

    public void setReplicaAckTimeout(Duration replicaAckTimeout) {
        this.replicaAckTimeout = replicaAckTimeout;
    }

    public boolean isFair() {
        return fair;
    }

    public void setFair(boolean fair) {
        this.fair = fair;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getDefaultLease() {
        return defaultLease;
    }

    public void setDefaultLease(Duration defaultLease) {
        this.defaultLease = defaultLease;
    }

    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    public String getClientName() {
        return clientName;
    }

    public void setClientName(String clientName) {
        this.clientName = clientName;
    }

    public Duration getSpinWait() {
        return spinWait;
    }

    public void setSpinWait(Duration spinWait) {
        this.spinWait = spinWait;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Leadership getLeadership() {
        return leadership;
    }
}
