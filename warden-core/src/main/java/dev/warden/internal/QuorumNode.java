package dev.warden.internal;

import dev.warden.LockConfig;
import dev.warden.LockConnectionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server of a quorum. Its client is created when the server can be reached: a server that is down when the
 * quorum client starts (or cannot be reached yet) is connected again in the background, at most once a second,
 * while operations count it as failed. Once connected, Lettuce reconnects it by itself.
 */
final class QuorumNode {
    private static final Logger LOG = LoggerFactory.getLogger(QuorumNode.class);
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LockConfig config;
    private final ScheduledExecutorService scheduler;
    private volatile RedisLockClient client;
    private volatile RuntimeException lastFailure;
    private boolean connecting;
    private long lastAttempt;
    private boolean closed;

    QuorumNode(LockConfig config, ScheduledExecutorService scheduler) {
        this.config = config;
        this.scheduler = scheduler;
    }

    /** Tries to connect now, on the calling thread; a failure is kept and retried later. */
    void connectNow() {
        synchronized (this) {
            connecting = true;
            lastAttempt = System.nanoTime();
        }
        connect();
    }

    /**
     * @return the connected client
     * @throws LockConnectionException if the server has not been reached yet (a background attempt is started)
     */
    RedisLockClient client() {
        RedisLockClient current = client;
        if (current != null) {
            return current;
        }
        synchronized (this) {
            if (!closed && !connecting && System.nanoTime() - lastAttempt > RETRY_NANOS) {
                connecting = true;
                lastAttempt = System.nanoTime();
                scheduler.execute(this::connect);
            }
        }
        throw new LockConnectionException("not connected to " + config.redisUriForDisplay()
                + (lastFailure == null ? "" : ": " + lastFailure.getMessage()), lastFailure);
    }

    /** @return the client if connected, else null */
    RedisLockClient connected() {
        return client;
    }

    void close() {
        RedisLockClient current;
        synchronized (this) {
            closed = true;
            current = client;
        }
        if (current != null) {
            current.close();
        }
    }

    private void connect() {
        RedisLockClient created = null;
        try {
            created = RedisLockClient.connect(config);
        } catch (RuntimeException e) {
            lastFailure = e;
            LOG.debug("quorum server {} unreachable: {}", config.redisUriForDisplay(), e.getMessage());
        }
        boolean discard;
        synchronized (this) {
            connecting = false;
            discard = closed && created != null;
            if (!discard && created != null) {
                client = created;
            }
        }
        if (discard) {
            created.close();
        }
    }
}
