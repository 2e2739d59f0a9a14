package dev.warden;

import dev.warden.internal.base.Require;
import dev.warden.internal.wire.RedisUris;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The immutable configuration of a {@link LockClient}, made by {@link #builder()}. Each builder method checks its
 * argument at once; {@link Builder#build()} takes a snapshot.
 */
public final class LockConfig {
    /** The lease of acquires that give none, renewed by the watchdog: 30 seconds. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /** How long a Redis command may take before it fails with {@link LockTimeoutException}: 3 seconds. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(3);
    /** The key prefix used when none is set: {@code "warden:"}. */
    public static final String DEFAULT_KEY_PREFIX = "warden:";
    /** The connection name shown by {@code CLIENT LIST} when none is set: {@code "warden"}. */
    public static final String DEFAULT_CLIENT_NAME = "warden";
    /** How long a grant waits for replica acknowledgements when none is set: 500 milliseconds. */
    public static final Duration DEFAULT_REPLICA_ACK_TIMEOUT = Duration.ofMillis(500);
    /** How long a blocked call may spin for a reply that is due before it parks, when none is set: 200 µs. */
    public static final Duration DEFAULT_SPIN_WAIT = Duration.ofNanos(200_000);
    /** The longest spin {@link Builder#spinWait(Duration)} takes: 10 milliseconds. */
    public static final Duration MAX_SPIN_WAIT = Duration.ofMillis(10);

    /** How the client reaches Redis. */
    public enum Topology {
        /** One server, or a master found through Sentinel: {@link Builder#redisUri(String)}. */
        SINGLE,
        /** A Redis Cluster reached through seed nodes: {@link Builder#cluster(String...)}. */
        CLUSTER,
        /** A quorum (Redlock) over independent masters: {@link Builder#quorum(String...)}. */
        QUORUM
    }

    private final Topology topology;
    private final List<String> redisUris;
    private final int replicaAcks;
    private final Duration replicaAckTimeout;
    private final String redisUri;
    private final String keyPrefix;
    private final Duration defaultLease;
    private final Duration commandTimeout;
    private final String clientName;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;
    private final LockListener listener;
    private final boolean fair;
    private final Duration spinWait;
    private final Path tlsTrustedCertificates;
    private final Path tlsClientCertificate;
    private final Path tlsClientKey;
    private final char[] password;

    private LockConfig(Builder b) {
        this.topology = b.topology;
        this.redisUris = List.copyOf(b.redisUris);
        this.replicaAcks = b.replicaAcks;
        this.replicaAckTimeout = b.replicaAckTimeout;
        this.redisUri = b.redisUris.get(0);
        this.keyPrefix = b.keyPrefix;
        this.defaultLease = b.defaultLease;
        this.commandTimeout = b.commandTimeout;
        this.clientName = b.clientName;
        this.ticker = b.ticker;
        this.scheduler = b.scheduler;
        this.listener = b.listener;
        this.fair = b.fair;
        this.spinWait = b.spinWait;
        this.tlsTrustedCertificates = b.tlsTrustedCertificates;
        this.tlsClientCertificate = b.tlsClientCertificate;
        this.tlsClientKey = b.tlsClientKey;
        this.password = b.password == null ? null : b.password.clone();
    }

    /** @return a new builder with the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns a builder that starts from these settings, to derive a configuration that differs in a few.
     *
     * @return a new builder with this configuration's settings
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.topology = topology;
        b.redisUris = redisUris;
        b.replicaAcks = replicaAcks;
        b.replicaAckTimeout = replicaAckTimeout;
        b.keyPrefix = keyPrefix;
        b.defaultLease = defaultLease;
        b.commandTimeout = commandTimeout;
        b.clientName = clientName;
        b.ticker = ticker;
        b.scheduler = scheduler;
        b.listener = listener;
        b.fair = fair;
        b.spinWait = spinWait;
        b.tlsTrustedCertificates = tlsTrustedCertificates;
        b.tlsClientCertificate = tlsClientCertificate;
        b.tlsClientKey = tlsClientKey;
        b.password = password;
        return b;
    }

    /**
     * @return a copy of the password given by {@link Builder#password}, used for every server whose URI has none;
     *         empty if none was given
     */
    public Optional<char[]> password() {
        return Optional.ofNullable(password).map(char[]::clone);
    }

    /**
     * @return the PEM file of the certificates a {@code rediss://} server's certificate must chain to, if set;
     *         otherwise the JVM's default trust store decides
     */
    public Optional<Path> tlsTrustedCertificates() {
        return Optional.ofNullable(tlsTrustedCertificates);
    }

    /** @return the PEM file of the client's certificate chain for mutual TLS, if set */
    public Optional<Path> tlsClientCertificate() {
        return Optional.ofNullable(tlsClientCertificate);
    }

    /** @return the PEM file of the client's private key (PKCS#8, unencrypted) for mutual TLS, if set */
    public Optional<Path> tlsClientKey() {
        return Optional.ofNullable(tlsClientKey);
    }

    /** @return the (first) Redis URI, password included; use {@link #redisUriForDisplay()} to show it */
    public String redisUri() {
        return redisUri;
    }

    /** @return every Redis URI: one for {@link Topology#SINGLE}, the seeds or the quorum's masters otherwise */
    public List<String> redisUris() {
        return redisUris;
    }

    /** @return how the client reaches Redis */
    public Topology topology() {
        return topology;
    }

    /** @return how many replicas must acknowledge a grant or renewal before it counts; 0 for none */
    public int replicaAcks() {
        return replicaAcks;
    }

    /** @return how long a grant or renewal waits for {@link #replicaAcks()} acknowledgements */
    public Duration replicaAckTimeout() {
        return replicaAckTimeout;
    }

    /** @return the Redis URIs, comma-separated, with any password replaced by {@code ***} */
    public String redisUriForDisplay() {
        List<String> masked = new ArrayList<>();
        for (String uri : redisUris) {
            masked.add(RedisUris.mask(uri));
        }
        return String.join(",", masked);
    }

    /** @return the prefix of every key Warden writes */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** @return the lease of acquires that give none, renewed by the watchdog */
    public Duration defaultLease() {
        return defaultLease;
    }

    /** @return the longest a Redis command may take */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** @return the connection name set with {@code CLIENT SETNAME} */
    public String clientName() {
        return clientName;
    }

    /** @return the monotonic clock for deadlines */
    public Ticker ticker() {
        return ticker;
    }

    /** @return the scheduler to use instead of the client's own thread, if one was given */
    public Optional<ScheduledExecutorService> scheduler() {
        return Optional.ofNullable(scheduler);
    }

    /** @return the listener that learns what happens to the client's locks, if one was given */
    public Optional<LockListener> listener() {
        return Optional.ofNullable(listener);
    }

    /** @return whether locks are granted to their waiters in arrival order, across clients */
    public boolean fair() {
        return fair;
    }

    /** @return how long a blocked call may spin for a reply that is due before it parks; zero for never */
    public Duration spinWait() {
        return spinWait;
    }

    @Override
    public String toString() {
        return "LockConfig{topology=" + topology + ", redisUri=" + redisUriForDisplay() + ", replicaAcks="
                + replicaAcks + ", fair=" + fair + ", keyPrefix=" + keyPrefix + ", defaultLease="
                + defaultLease + ", commandTimeout=" + commandTimeout + ", clientName=" + clientName + ", spinWait="
                + spinWait + ", listener=" + listener + "}";
    }

    /** Builds a {@link LockConfig}. Not thread-safe; each method validates its argument when called. */
    public static final class Builder {
        private Topology topology = Topology.SINGLE;
        private List<String> redisUris = List.of();
        private int replicaAcks;
        private Duration replicaAckTimeout = DEFAULT_REPLICA_ACK_TIMEOUT;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration defaultLease = DEFAULT_LEASE;
        private Duration spinWait = DEFAULT_SPIN_WAIT;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private String clientName = DEFAULT_CLIENT_NAME;
        private Ticker ticker = Ticker.system();
        private ScheduledExecutorService scheduler;
        private LockListener listener;
        private boolean fair;
        private Path tlsTrustedCertificates;
        private Path tlsClientCertificate;
        private Path tlsClientKey;
        private char[] password;

        private Builder() {
        }

        /**
         * Authenticates with this password to every server whose URI carries none, so that a password can come from a
         * file or the environment rather than a URI on a command line: as the ACL user a URI names alone
         * ({@code redis://user@host}, which otherwise means a password), else as the default user.
         *
         * @param value the password; copied
         * @return this builder
         * @throws NullPointerException     if {@code value} is null
         * @throws IllegalArgumentException if it is empty
         */
        public Builder password(char[] value) {
            Objects.requireNonNull(value, "password");
            Require.argument(value.length > 0, "password must not be empty");
            this.password = value.clone();
            return this;
        }

        /**
         * Trusts the certificates in this PEM file (one or more CA certificates) for {@code rediss://} servers
         * (and the sentinels and master of {@code rediss-sentinel://}), instead of the JVM's default trust store.
         * Verification stays on: a server whose certificate does not chain to them, or names another host, is a
         * {@link LockConnectionException}.
         *
         * @param pemFile a readable PEM file of X.509 certificates
         * @return this builder
         * @throws NullPointerException     if {@code pemFile} is null
         * @throws IllegalArgumentException if the file is not a readable regular file
         */
        public Builder tlsTrustedCertificates(Path pemFile) {
            this.tlsTrustedCertificates = readable(pemFile, "pemFile");
            return this;
        }

        /**
         * Presents this certificate and key to {@code rediss://} servers that require client certificates (Redis's
         * {@code tls-auth-clients yes}): mutual TLS.
         *
         * @param certificateChain a readable PEM file of the client's certificate, then any intermediates
         * @param privateKey       a readable PEM file of its private key, PKCS#8 and unencrypted
         * @return this builder
         * @throws NullPointerException     if an argument is null
         * @throws IllegalArgumentException if a file is not a readable regular file
         */
        public Builder tlsClientCertificate(Path certificateChain, Path privateKey) {
            this.tlsClientCertificate = readable(certificateChain, "certificateChain");
            this.tlsClientKey = readable(privateKey, "privateKey");
            return this;
        }

        private static Path readable(Path file, String name) {
            Objects.requireNonNull(file, name);
            Require.argument(Files.isRegularFile(file) && Files.isReadable(file),
                    "%s must be a readable file: %s", name, file);
            return file;
        }

        /**
         * Uses one Redis server: {@code redis://[[user]:password@]host[:port][/database]}, {@code rediss://} for
         * TLS, or {@code redis-sentinel://host:port[,host:port...][/database]#masterName} for the master that
         * Sentinel names (followed across failovers), {@code rediss-sentinel://} for TLS to the sentinels and that
         * master (both verified with {@link #tlsTrustedCertificates}, where set). Replaces any earlier {@link #cluster} or {@link #quorum}.
         * One of the three is required.
         *
         * @param uri the URI
         * @return this builder
         * @throws NullPointerException     if {@code uri} is null
         * @throws IllegalArgumentException if it is not a valid Redis URI (the message never shows a password)
         */
        public Builder redisUri(String uri) {
            RedisUris.parse(uri);
            this.topology = Topology.SINGLE;
            this.redisUris = List.of(uri);
            return this;
        }

        /**
         * Uses a Redis Cluster, reached through these seed nodes ({@code redis://} or {@code rediss://}); the rest
         * of the cluster is discovered from them. Replaces any earlier {@link #redisUri} or {@link #quorum}.
         *
         * @param seedUris one or more seed URIs
         * @return this builder
         * @throws NullPointerException     if the array or a URI is null
         * @throws IllegalArgumentException if none is given or one is not a valid Redis URI
         */
        public Builder cluster(String... seedUris) {
            this.redisUris = uris(seedUris, 1, "cluster");
            this.topology = Topology.CLUSTER;
            return this;
        }

        /**
         * Uses a quorum (the Redlock algorithm) over independent Redis masters: a lock is granted when a majority
         * of them grant it within the lease's validity. Replaces any earlier {@link #redisUri} or {@link #cluster}.
         *
         * @param uris three or more URIs ({@code redis://} or {@code rediss://}) of independent servers
         * @return this builder
         * @throws NullPointerException     if the array or a URI is null
         * @throws IllegalArgumentException if fewer than three are given, one repeats, or one is not valid
         */
        public Builder quorum(String... uris) {
            List<String> parsed = uris(uris, 3, "quorum");
            Require.argument(parsed.stream().distinct().count() == parsed.size(),
                    "quorum servers must be distinct: %s", String.join(",", parsed.stream().map(RedisUris::mask).toList()));
            this.redisUris = parsed;
            this.topology = Topology.QUORUM;
            return this;
        }

        /**
         * Requires {@code replicas} replicas to acknowledge (Redis {@code WAIT}) every grant and renewal, within
         * {@code timeout}. An acquire that gets fewer acknowledgements releases the lock and fails with
         * {@link LockReplicationException} (fail closed); a renewal that gets fewer does not extend the lease.
         * 0 turns it off (the default). In a {@link Topology#CLUSTER}, the replicas are those of the master that
         * serves the lock's slot. See {@link DistributedLock#withReplicaAcks} for one lock.
         *
         * @param replicas how many replicas must acknowledge, 0 or more
         * @param timeout  how long to wait for them; shorter than the command timeout
         * @return this builder
         * @throws NullPointerException     if {@code timeout} is null
         * @throws IllegalArgumentException if {@code replicas} is negative or {@code timeout} not positive
         */
        public Builder replicaAcks(int replicas, Duration timeout) {
            Require.argument(replicas >= 0, "replicas must not be negative: %d", replicas);
            this.replicaAckTimeout = Require.lease(timeout, "timeout");
            this.replicaAcks = replicas;
            return this;
        }

        /**
         * Turns fair mode on or off; off by default. In fair mode each lock goes to its waiters in the order they
         * started waiting, across all clients and processes: a release grants the lock directly to the oldest live
         * waiter, which learns of it by pub/sub without a further request, and a try never takes a lock that others
         * wait for. A waiter proves itself alive every second; one that stops (its process died) is skipped after
         * 3 seconds, and a grant made to it just before it died holds the lock for at most 5 seconds (the waiter's
         * lease if shorter), not a whole lease. Every client of one lock name must use the same mode. Not
         * available with {@link #quorum} or {@link #replicaAcks}.
         *
         * <p>Off (the default mode), waiters of other clients queue in the same way, and a release through Redis
         * grants the lock to the oldest of them, but a release may first pass a renewed lease to a waiter of the same
         * client without a request, whatever its place in the queue, up to 8 times in a row within 100 ms. A first
         * try by a client that has not waited for the lock lately is a plain {@code SET NX}, which may also take a
         * lock whose holder expired before the queue's head retried. With {@link #replicaAcks} (or
         * {@link DistributedLock#withReplicaAcks}) waiters do not queue: a release wakes them to try again.
         *
         * @param value true for fair mode
         * @return this builder
         */
        public Builder fair(boolean value) {
            this.fair = value;
            return this;
        }

        /**
         * Sets the prefix of every key Warden writes, for example {@code "lock:"}; may be empty.
         *
         * @param prefix the prefix
         * @return this builder
         * @throws NullPointerException if {@code prefix} is null
         */
        public Builder keyPrefix(String prefix) {
            this.keyPrefix = Objects.requireNonNull(prefix, "keyPrefix");
            return this;
        }

        /**
         * Sets the lease of acquires that give none; the watchdog renews such leases every third of it.
         *
         * @param lease a positive duration of at least a millisecond
         * @return this builder
         * @throws NullPointerException     if {@code lease} is null
         * @throws IllegalArgumentException if it is shorter than a millisecond
         */
        public Builder defaultLease(Duration lease) {
            this.defaultLease = Require.lease(lease, "defaultLease");
            return this;
        }

        /**
         * Sets how long a Redis command may take before it fails with {@link LockTimeoutException}; also the
         * connect timeout.
         *
         * @param timeout a positive duration of at least a millisecond
         * @return this builder
         * @throws NullPointerException     if {@code timeout} is null
         * @throws IllegalArgumentException if it is shorter than a millisecond
         */
        public Builder commandTimeout(Duration timeout) {
            this.commandTimeout = Require.lease(timeout, "commandTimeout");
            return this;
        }

        /**
         * Sets the connection name shown by {@code CLIENT LIST}.
         *
         * @param name a name without spaces
         * @return this builder
         * @throws NullPointerException     if {@code name} is null
         * @throws IllegalArgumentException if it is blank or contains white space
         */
        public Builder clientName(String name) {
            Objects.requireNonNull(name, "clientName");
            Require.argument(!name.isBlank() && name.chars().noneMatch(Character::isWhitespace),
                    "clientName must be non-blank without spaces: '%s'", name);
            this.clientName = name;
            return this;
        }

        /**
         * Sets the monotonic clock used for deadlines; for tests.
         *
         * @param value the ticker
         * @return this builder
         * @throws NullPointerException if {@code value} is null
         */
        public Builder ticker(Ticker value) {
            this.ticker = Objects.requireNonNull(value, "ticker");
            return this;
        }

        /**
         * Runs the watchdog and wait timers on this scheduler instead of a thread of the client's own. The client
         * does not shut it down.
         *
         * @param value the scheduler
         * @return this builder
         * @throws NullPointerException if {@code value} is null
         */
        public Builder scheduler(ScheduledExecutorService value) {
            this.scheduler = Objects.requireNonNull(value, "scheduler");
            return this;
        }

        /**
         * Tells {@code value} what happens to the client's locks (acquired, waited, released, lost, renewed), on a
         * thread of the client's own, so that it cannot slow or break a lock; {@code warden-micrometer} has one that
         * records metrics. One listener per client: to have several, write one that calls them.
         *
         * @param value the listener
         * @return this builder
         * @throws NullPointerException if {@code value} is null
         */
        public Builder listener(LockListener value) {
            this.listener = Objects.requireNonNull(value, "listener");
            return this;
        }

        /**
         * Sets how long a thread blocked in a call of this client ({@code acquire}, {@code tryAcquire},
         * {@code release}, {@code inspect}) may spin for the reply in flight before it parks. Waking a parked thread
         * takes tens of microseconds when its core sat idle (more in a virtual machine), as long as a round trip to
         * a Redis nearby; a thread that spins is running when the reply comes. A thread spins only while it is the
         * only thread of this client inside a blocking call (so a busy client or a contended lock never spins),
         * never while it waits for a lock held by another, and less the more often its spins run out.
         *
         * @param value how long at most, from zero (never spin) to {@link #MAX_SPIN_WAIT}
         * @return this builder
         * @throws NullPointerException     if {@code value} is null
         * @throws IllegalArgumentException if it is negative or longer than {@link #MAX_SPIN_WAIT}
         */
        public Builder spinWait(Duration value) {
            Objects.requireNonNull(value, "spinWait");
            Require.argument(!value.isNegative() && value.compareTo(MAX_SPIN_WAIT) <= 0,
                    "spinWait must be between PT0S and %s: %s", MAX_SPIN_WAIT, value);
            this.spinWait = value;
            return this;
        }

        /**
         * Takes a snapshot of the settings.
         *
         * @return the configuration
         * @throws IllegalStateException if no server was set, or the settings contradict each other (an
         *                               acknowledgement timeout not shorter
         *                               than the command timeout, fair mode with a quorum or replica
         *                               acknowledgements)
         */
        public LockConfig build() {
            if (redisUris.isEmpty()) {
                throw new IllegalStateException("redisUri, cluster or quorum must be set");
            }
            if (fair && topology == Topology.QUORUM) {
                throw new IllegalStateException("fair mode is not supported with a quorum");
            }
            if (fair && replicaAcks > 0) {
                throw new IllegalStateException("fair mode is not supported with replicaAcks: " + replicaAcks);
            }
            if (replicaAcks > 0 && replicaAckTimeout.compareTo(commandTimeout) >= 0) {
                throw new IllegalStateException("replicaAckTimeout must be shorter than commandTimeout ("
                        + commandTimeout + "): " + replicaAckTimeout);
            }
            return new LockConfig(this);
        }

        private static List<String> uris(String[] uris, int min, String what) {
            Objects.requireNonNull(uris, what);
            List<String> list = new ArrayList<>();
            for (String uri : uris) {
                Objects.requireNonNull(uri, what + " URI");
                Require.argument(!uri.startsWith("redis-sentinel:") && !uri.startsWith("rediss-sentinel:"), "%s takes redis:// or rediss:// URIs: %s",
                        what, RedisUris.mask(uri));
                RedisUris.parse(uri);
                list.add(uri);
            }
            Require.argument(list.size() >= min, "%s needs at least %d URIs: %d", what, min, list.size());
            return list;
        }
    }
}
