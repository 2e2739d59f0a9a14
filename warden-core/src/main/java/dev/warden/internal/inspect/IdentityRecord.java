package dev.warden.internal.inspect;

import dev.warden.internal.base.Errors;
import dev.warden.internal.script.IdentityCodec;
import dev.warden.internal.script.Scripts;
import dev.warden.internal.script.Tokens;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's identity record in Redis, {@code <prefix>client:<tag>}: one string holding the client's name, host and
 * process id, and the names of the threads that acquired through it ({@link IdentityCodec}). Tokens carry the tag
 * and the thread's id ({@link Tokens.Origin}), so that {@code inspect} can name a holder or a waiter from the record
 * ({@link IdentityReader}) while a held lock costs only its token's origin in Redis.
 *
 * <p>Nothing is written until the client first acquires, so a client that only inspects leaves no key. Then the
 * whole record is written with one {@code SET ... PX} from the scheduler, never on the caller's path: at once, again
 * every {@link #REFRESH_MILLIS} ms (it lives {@link #LIFE_MILLIS} ms, so it goes soon after its client stops), and
 * whenever a thread not recorded yet (or renamed) acquires. Every write is whole and atomic with its expiry, so a
 * record lost with Redis's data is whole again at the next write. At most {@value #MAX_THREADS} threads are
 * recorded; unnamed threads (virtual threads usually) are not.
 *
 * <p>A write that fails is logged and tried again at the next refresh: the record is for people, and a lock works
 * without it.
 */
public final class IdentityRecord {
    private static final Logger LOG = LoggerFactory.getLogger(IdentityRecord.class);
    static final long REFRESH_MILLIS = 60_000;
    public static final long LIFE_MILLIS = 3 * REFRESH_MILLIS;
    static final int MAX_THREADS = 1024;

    private final Scripts scripts;
    private final ScheduledExecutorService scheduler;
    private final String key;
    private final String clientName;
    /** The threads recorded or to be recorded, by id: their names as last seen. */
    private final Map<Long, String> threads = new ConcurrentHashMap<>();
    /** Set once the client first acquired: the record is being written. */
    private volatile boolean started;
    /** Guarded by this: the state of the record's writing. */
    private State state = State.NEW;
    /** Guarded by this: whether something changed since the write in flight was taken. */
    private boolean dirty;
    /** Guarded by this: the periodic refresh, once started. */
    private ScheduledFuture<?> refresh;
    /** Guarded by this: the last write sent, so that the delete at close goes after it. */
    private CompletableFuture<Void> lastWrite = CompletableFuture.completedFuture(null);
    /** The host's name, read on the scheduler by the first write. */
    private String host;

    /** The writing's states: not started, idle between writes, a write scheduled or in flight, closed. */
    private enum State { NEW, IDLE, WRITING, CLOSED }

    public IdentityRecord(Scripts scripts, ScheduledExecutorService scheduler, String prefix, String tag,
                          String clientName) {
        this.scripts = scripts;
        this.scheduler = scheduler;
        this.key = key(prefix, tag);
        this.clientName = clientName;
    }

    /** @return the key of the record of the client tagged {@code tag} */
    static String key(String prefix, String tag) {
        return prefix + "client:" + tag;
    }

    /**
     * Notes that the calling thread asks for a lock: starts the record on the client's first acquisition and
     * records a named thread not seen before (or renamed), while fewer than {@value #MAX_THREADS} are. Costs a map
     * lookup when nothing is new.
     */
    public void asking() {
        Thread thread = Thread.currentThread();
        String name = thread.getName();
        if (name.isEmpty()) {
            if (!started) {
                changed();
            }
            return;
        }
        long id = thread.getId();
        String known = threads.get(id);
        if (name.equals(known) || known == null && threads.size() >= MAX_THREADS) {
            if (!started) {
                changed();
            }
            return;
        }
        threads.put(id, name);
        changed();
    }

    private synchronized void changed() {
        if (state == State.CLOSED) {
            return;
        }
        if (state == State.NEW) {
            started = true;
            refresh = scheduler.scheduleWithFixedDelay(this::refresh, REFRESH_MILLIS, REFRESH_MILLIS,
                    TimeUnit.MILLISECONDS);
        }
        if (state == State.WRITING) {
            dirty = true;
            return;
        }
        state = State.WRITING;
        try {
            scheduler.execute(this::write);
        } catch (RejectedExecutionException e) {
            // The client is closing: its scheduler stopped first.
            LOG.debug("Identity record {} not written: the client is closing", key, e);
            state = State.CLOSED;
        }
    }

    private void refresh() {
        synchronized (this) {
            if (state != State.IDLE) {
                return;
            }
            state = State.WRITING;
        }
        write();
    }

    /**
     * Writes the whole record; runs on the scheduler, once at a time (state WRITING). A failure to send is handled
     * as a failed write: the scheduler's periodic task must not end by an exception.
     */
    private void write() {
        try {
            String value;
            synchronized (this) {
                if (state == State.CLOSED) {
                    return;
                }
                dirty = false;
            }
            value = IdentityCodec.encode(fields());
            CompletableFuture<Void> write = scripts.writeIdentity(key, value, LIFE_MILLIS);
            synchronized (this) {
                lastWrite = write;
            }
            write.whenComplete((ok, error) -> written(error));
        } catch (RuntimeException e) {
            written(e);
        }
    }

    private void written(Throwable error) {
        boolean again;
        synchronized (this) {
            if (state == State.CLOSED) {
                return;
            }
            if (error != null) {
                LOG.warn("Could not write this client's identity record {} (tried again in {} s): {}", key,
                        REFRESH_MILLIS / 1000, Errors.unwrap(error).toString());
            }
            again = error == null && dirty;
            state = again ? State.WRITING : State.IDLE;
        }
        if (again) {
            try {
                scheduler.execute(this::write);
            } catch (RejectedExecutionException e) {
                LOG.debug("Identity record {} not written again: the client is closing", key, e);
            }
        }
    }

    /** @return the record's fields: name, host, pid, then a {@code t:<id>} field per thread */
    private Map<String, String> fields() {
        if (host == null) {
            host = host();
        }
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("name", clientName);
        fields.put("host", host);
        fields.put("pid", Long.toString(ProcessHandle.current().pid()));
        threads.forEach((id, name) -> fields.put(field(id), name));
        return fields;
    }

    /**
     * The host's name: {@code HOSTNAME} where the environment has it (no lookup), else the local host's name,
     * which may ask the resolver (on the scheduler, never on a caller's path).
     */
    private static String host() {
        String name = System.getenv("HOSTNAME");
        if (name != null && !name.isBlank()) {
            return name;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            LOG.debug("This host's name is unknown; the identity record says so", e);
            return "unknown";
        }
    }

    /** @return the record's field for a thread's name */
    static String field(long threadId) {
        return "t:" + Long.toString(threadId, 36);
    }

    /** Stops writing; the record stays until {@link #delete()} or the end of its life. Idempotent. */
    public synchronized void close() {
        state = State.CLOSED;
        if (refresh != null) {
            refresh.cancel(false);
        }
    }

    /**
     * Deletes the record once the last write was answered, if one was ever sent: a closed client holds nothing,
     * so it names no one. Call after {@link #close()}.
     *
     * @return completes when the record is gone, or exceptionally if the delete failed
     */
    public CompletableFuture<Void> delete() {
        CompletableFuture<Void> last;
        synchronized (this) {
            if (!started) {
                return CompletableFuture.completedFuture(null);
            }
            last = lastWrite;
        }
        return last.handle((ok, error) -> null).thenCompose(ignored -> scripts.deleteIdentity(key));
    }
}
