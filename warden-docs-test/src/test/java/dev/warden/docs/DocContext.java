package dev.warden.docs;

import dev.warden.DistributedLock;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the documentation's snippets take as given, for the scaffold class that {@link DocSnippetsTest} wraps around
 * a snippet of statements or of class members: the scaffold extends this class, so a snippet sees these names.
 *
 * <p>{@link #client} is a client of the test's redis-server, {@link #lock} one of its locks; the rest stand for an
 * application's own objects (a store that checks fencing tokens, an order, a Micrometer registry).
 */
public class DocContext {
    /** The test's client, set before a scaffold is made. */
    static volatile LockClient sharedClient;
    /** The clients that snippets made (their {@code LockClient.create} calls, rewritten), closed after each. */
    static final List<LockClient> CREATED = new CopyOnWriteArrayList<>();

    /** The application's one client: the test's, connected to its redis-server. */
    protected final LockClient client = sharedClient;
    /** A lock, as a snippet that says {@code lock.acquire()} has one. */
    protected final DistributedLock lock = client == null ? null : client.lock("orders:42");
    protected final MeterRegistry meterRegistry = new SimpleMeterRegistry();
    protected final ObservationRegistry observationRegistry = ObservationRegistry.create();
    /** A resource that takes fenced writes. */
    protected final Storage storage = new Storage();
    protected String key = "orders:42";
    protected String value = "shipped";
    /** A job that only the leader runs, as the leadership snippet has one. */
    protected final Scheduler scheduler = new Scheduler();
    /** The token of the write that the storage service is checking: the last one it was handed. */
    protected long token;

    /** {@code LockClient.create(config)} of a snippet, which the scaffold rewrites to this, so the test closes it. */
    protected static LockClient created(LockConfig config) {
        LockClient made = LockClient.create(config);
        CREATED.add(made);
        return made;
    }

    /** @return the highest token the storage accepted for the key, the one being checked included */
    protected long highestTokenSeen(String key) {
        return storage.highest.getOrDefault(key, 0L);
    }

    /** A store that remembers the highest fencing token it saw per key. */
    public class Storage {
        final Map<String, Long> highest = new ConcurrentHashMap<>();

        public void write(String key, String value, long fencingToken) {
            token = fencingToken;
            highest.merge(key, fencingToken, Math::max);
        }
    }

    /** An application's job that runs while this instance leads, with the term's epoch for its writes. */
    public static class Scheduler {
        volatile long epoch;

        public void start(long epoch) {
            this.epoch = epoch;
        }

        public void stop() {
            epoch = 0;
        }
    }

    /** A write with a token below the highest seen. */
    public static class StaleWriteException extends RuntimeException {
        public StaleWriteException() {
            super("stale fencing token");
        }
    }

    /** An application's order, as {@code @Locked("orders:#{#order.id}")} snippets take one. */
    public static class Order {
        private final long id;

        public Order(long id) {
            this.id = id;
        }

        public long getId() {
            return id;
        }
    }
}
