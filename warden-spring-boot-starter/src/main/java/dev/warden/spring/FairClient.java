package dev.warden.spring;

import dev.warden.LockClient;
import dev.warden.LockConfig;
import java.util.function.UnaryOperator;

/**
 * The client that {@code @Locked(fair = true)} methods use when the application's {@link LockClient} is not fair:
 * made from its configuration with fair mode on, at the first call that needs it, shared by every fair method of the
 * application context, and closed with it ({@link LockedPostProcessor#destroy()}). One per context, so that two
 * contexts in one JVM never share one. The starter's wrapping (its acquire calls as Micrometer observations) is
 * applied to it as to the starter's own client.
 */
final class FairClient implements AutoCloseable {
    /** What the starter does to its own client after building it (observations); applied to this one too. */
    private final UnaryOperator<LockClient> wrap;
    private volatile LockClient client;
    private boolean closed;

    /** @param wrap applied to the fair client once built, as the starter applies it to its own */
    FairClient(UnaryOperator<LockClient> wrap) {
        this.wrap = wrap;
    }

    /**
     * @param application the application's client, which is not fair
     * @return the fair client, created from {@code application}'s configuration on the first call
     * @throws IllegalStateException if {@code application}'s configuration cannot be fair (a quorum, replica
     *                               acknowledgements; the message says which), or the context is closed
     */
    LockClient of(LockClient application) {
        LockClient fair = client;
        if (fair != null) {
            return fair;
        }
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the application context is closed");
            }
            if (client == null) {
                LockConfig config;
                try {
                    config = application.config().toBuilder().fair(true).build();
                } catch (IllegalStateException e) {
                    throw new IllegalStateException("the application's LockClient cannot be made fair: "
                            + e.getMessage(), e);
                }
                LockClient created = LockClient.create(config);
                try {
                    client = wrap.apply(created);
                } catch (RuntimeException e) {
                    created.close();
                    throw e;
                }
            }
            return client;
        }
    }

    /** Closes the client, if one was created; later calls to {@link #of} throw. Idempotent. */
    @Override
    public void close() {
        LockClient fair;
        synchronized (this) {
            closed = true;
            fair = client;
            client = null;
        }
        if (fair != null) {
            fair.close();
        }
    }
}
