package dev.warden;

import dev.warden.internal.Require;
import dev.warden.internal.RedisUris;
import java.time.Duration;
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

    private final String redisUri;
    private final String keyPrefix;
    private final Duration defaultLease;
    private final Duration commandTimeout;
    private final String clientName;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;

    private LockConfig(Builder b) {
        this.redisUri = b.redisUri;
        this.keyPrefix = b.keyPrefix;
        this.defaultLease = b.defaultLease;
        this.commandTimeout = b.commandTimeout;
        this.clientName = b.clientName;
        this.ticker = b.ticker;
        this.scheduler = b.scheduler;
    }

    /** @return a new builder with the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the Redis URI, password included; use {@link #redisUriForDisplay()} to show it */
    public String redisUri() {
        return redisUri;
    }

    /** @return the Redis URI with any password replaced by {@code ***} */
    public String redisUriForDisplay() {
        return RedisUris.mask(redisUri);
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

    @Override
    public String toString() {
        return "LockConfig{redisUri=" + redisUriForDisplay() + ", keyPrefix=" + keyPrefix + ", defaultLease="
                + defaultLease + ", commandTimeout=" + commandTimeout + ", clientName=" + clientName + "}";
    }

    /** Builds a {@link LockConfig}. Not thread-safe; each method validates its argument when called. */
    public static final class Builder {
        private String redisUri;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration defaultLease = DEFAULT_LEASE;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private String clientName = DEFAULT_CLIENT_NAME;
        private Ticker ticker = Ticker.system();
        private ScheduledExecutorService scheduler;

        private Builder() {
        }

        /**
         * Sets the Redis server: {@code redis://[[user]:password@]host[:port][/database]}, or {@code rediss://}
         * for TLS. Required.
         *
         * @param uri the URI
         * @return this builder
         * @throws NullPointerException     if {@code uri} is null
         * @throws IllegalArgumentException if it is not a valid Redis URI (the message never shows a password)
         */
        public Builder redisUri(String uri) {
            RedisUris.parse(uri);
            this.redisUri = uri;
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
         * Takes a snapshot of the settings.
         *
         * @return the configuration
         * @throws IllegalStateException if {@link #redisUri(String)} was not set
         */
        public LockConfig build() {
            if (redisUri == null) {
                throw new IllegalStateException("redisUri must be set");
            }
            return new LockConfig(this);
        }
    }
}
