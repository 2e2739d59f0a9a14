package dev.warden.internal.quorum;

import dev.warden.LockConfig;
import dev.warden.LockConnectionException;
import dev.warden.internal.base.Errors;
import dev.warden.internal.wait.Deployment;
import dev.warden.internal.wire.SharedResources;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server of a quorum. Its {@link Deployment} connections are made when the server can be reached: a server that is
 * down when the quorum client starts (or cannot be reached yet) is connected again in the background, at most once
 * a second, while operations count it as failed. Once connected, Lettuce reconnects it by itself. Every node runs
 * on the quorum client's {@link SharedResources}.
 */
public final class QuorumNode {
    private static final Logger LOG = LoggerFactory.getLogger(QuorumNode.class);
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** At most one warning a minute per server about its failed requests. */
    private static final long WARN_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final LockConfig config;
    private final SharedResources shared;
    private final String instanceId;
    private volatile Deployment server;
    private volatile RuntimeException lastFailure;
    /** Whether a connection attempt is under way. Guarded by this. */
    private boolean connecting;
    /** When the last connection attempt began ({@code System.nanoTime}). Guarded by this. */
    private long lastAttempt;
    /** Closed: no connection attempt begins any more. Guarded by this. */
    private boolean closed;
    /** Whether a failed request was logged yet, when (ticker), and how many failed since. Guarded by this. */
    private boolean warned;
    private long warnedAt;
    private int failedSinceWarning;

    /**
     * @param config     this server's configuration
     * @param instanceId the quorum client's id, which its releases announce on every server
     */
    public QuorumNode(LockConfig config, SharedResources shared, String instanceId) {
        this.config = config;
        this.shared = shared;
        this.instanceId = instanceId;
    }

    /** Tries to connect now, on the calling thread; a failure is kept and retried later. */
    public void connectNow() {
        synchronized (this) {
            connecting = true;
            lastAttempt = System.nanoTime();
        }
        connect();
    }

    /**
     * @return the server's connections
     * @throws LockConnectionException if the server has not been reached yet (a background attempt is started)
     */
    public Deployment server() {
        Deployment current = server;
        if (current != null) {
            return current;
        }
        synchronized (this) {
            if (!closed && !connecting && System.nanoTime() - lastAttempt > RETRY_NANOS) {
                connecting = true;
                lastAttempt = System.nanoTime();
                shared.scheduler().execute(this::connect);
            }
        }
        throw new LockConnectionException("not connected to " + config.redisUriForDisplay()
                + (lastFailure == null ? "" : ": " + lastFailure.getMessage()), lastFailure);
    }

    /**
     * A request to this server failed (refused, timed out, or not sent since the server cannot be reached). The
     * operation counts it as this server's failure, and while the other servers make a majority nobody else hears of
     * it, so it is logged here at WARN: the first, then at most one a minute with how many failed meanwhile.
     */
    void failed(Throwable error) {
        long now = config.ticker().read();
        int since;
        synchronized (this) {
            if (warned && now - warnedAt < WARN_NANOS) {
                failedSinceWarning++;
                return;
            }
            warned = true;
            warnedAt = now;
            since = failedSinceWarning;
            failedSinceWarning = 0;
        }
        Throwable cause = Errors.unwrap(error);
        LOG.warn("quorum server {} failed a request{}, which counts as that server's failure: {}",
                config.redisUriForDisplay(), since > 0 ? " (and " + since + " more since the last warning)" : "",
                cause.getMessage() != null ? cause.getMessage() : cause.toString());
    }

    /** @return the server's connections if connected, else null */
    public Deployment connected() {
        return server;
    }

    public void close() {
        Deployment current;
        synchronized (this) {
            closed = true;
            current = server;
        }
        if (current != null) {
            current.close();
        }
    }

    private void connect() {
        Deployment created = null;
        try {
            created = Deployment.connect(config, shared, instanceId);
        } catch (RuntimeException e) {
            lastFailure = e;
            LOG.debug("quorum server {} unreachable: {}", config.redisUriForDisplay(), e.getMessage());
        }
        boolean discard;
        synchronized (this) {
            connecting = false;
            discard = closed && created != null;
            if (!discard && created != null) {
                server = created;
            }
        }
        if (discard) {
            created.close();
        }
    }
}
