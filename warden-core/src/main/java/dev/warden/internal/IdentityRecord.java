package dev.warden.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's identity record in Redis, {@code <prefix>client:<tag>}: a hash of the client's name, host and process id,
 * and the names of the threads that acquired through it ({@code t:<thread id in base 36>}). Tokens carry the tag and
 * the thread's id ({@link Tokens.Origin}), so that {@code inspect} can name a holder or a waiter from the record
 * ({@link IdentityReader}) while a held lock costs only its token's origin in Redis.
 *
 * <p>Nothing is written until the client first acquires, so a client that only inspects leaves no key. Then the
 * record is written from the scheduler, never on the caller's path: at once, again every {@link #REFRESH_MILLIS} ms
 * (it lives {@link #LIFE_MILLIS} ms, so it goes soon after its client stops), and whenever a thread not recorded yet
 * (or renamed) acquires. A refresh that finds the record gone (Redis lost its data) writes every thread again. At
 * most {@value #MAX_THREADS} threads are recorded; unnamed threads (virtual threads usually) are not.
 *
 * <p>A write that fails is logged and tried again at the next refresh: the record is for people, and a lock works
 * without it.
 */
final class IdentityRecord {
    private static final Logger LOG = LoggerFactory.getLogger(IdentityRecord.class);
    static final long REFRESH_MILLIS = 60_000;
    static final long LIFE_MILLIS = 3 * REFRESH_MILLIS;
    static final int MAX_THREADS = 1024;

    private final Scripts scripts;
    private final ScheduledExecutorService scheduler;
    private final String key;
    private final String clientName;
    /** The threads recorded or to be recorded, by id: their names as last seen. */
    private final Map<Long, String> threads = new ConcurrentHashMap<>();
    /** Guarded by this: the state of the record's writing. */
    private State state = State.NEW;
    /** Set once the client first acquired: the record is being written. */
    private volatile boolean started;
    /** Guarded by this: whether a write succeeded, so that a record found missing was lost. */
    private boolean written;
    /** Guarded by this: the threads whose names the next write carries, field then value. */
    private List<String> pending = new ArrayList<>();
    /** Guarded by this: whether the next write carries every thread (the record was found gone). */
    private boolean writeAll;
    /** Guarded by this: the periodic refresh, once started. */
    private ScheduledFuture<?> refresh;
    /** Written once, on the scheduler, by the first write: name, host, pid fields. */
    private volatile List<String> base;

    /** The writing's states: not started, idle between writes, a write scheduled or running, closed. */
    private enum State { NEW, IDLE, WRITING, CLOSED }

    IdentityRecord(Scripts scripts, ScheduledExecutorService scheduler, String prefix, String tag, String clientName) {
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
     * records a thread not seen before. Costs a map lookup when nothing is new.
     */
    void asking() {
        Thread thread = Thread.currentThread();
        String name = thread.getName();
        long id = thread.getId();
        if (name.isEmpty() ? started : name.equals(threads.get(id))) {
            return;
        }
        if (!name.isEmpty() && (threads.size() < MAX_THREADS || threads.containsKey(id))) {
            threads.put(id, name);
            changed(List.of(field(id), name));
        } else {
            changed(List.of());
        }
    }

    private synchronized void changed(List<String> fields) {
        if (state == State.CLOSED) {
            return;
        }
        pending.addAll(fields);
        if (state == State.NEW) {
            started = true;
            refresh = scheduler.scheduleWithFixedDelay(this::refresh, REFRESH_MILLIS, REFRESH_MILLIS,
                    TimeUnit.MILLISECONDS);
        }
        if (state != State.WRITING) {
            state = State.WRITING;
            try {
                scheduler.execute(this::write);
            } catch (RejectedExecutionException e) {
                // The client is closing: its scheduler stopped first.
                LOG.debug("Identity record {} not written: the client is closing", key, e);
                state = State.CLOSED;
            }
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
     * Writes the base fields and what is pending; runs on the scheduler, once at a time (state WRITING). A failure
     * to send is handled as a failed write: the scheduler's periodic task must not end by an exception.
     */
    private void write() {
        try {
            send();
        } catch (RuntimeException e) {
            LOG.warn("Could not write this client's identity record {}", key, e);
            synchronized (this) {
                writeAll = true;
                if (state == State.WRITING) {
                    state = State.IDLE;
                }
            }
        }
    }

    private void send() {
        List<String> fields = new ArrayList<>(base());
        synchronized (this) {
            if (state == State.CLOSED) {
                return;
            }
            if (writeAll) {
                pending.clear();
                threads.forEach((id, name) -> {
                    pending.add(field(id));
                    pending.add(name);
                });
                writeAll = false;
            }
            fields.addAll(pending);
            pending = new ArrayList<>();
        }
        int sent = fields.size();
        scripts.writeIdentity(key, LIFE_MILLIS, fields).whenComplete((existed, error) -> {
            boolean again;
            synchronized (this) {
                if (state == State.CLOSED) {
                    return;
                }
                if (error != null) {
                    LOG.warn("Could not write this client's identity record {} (tried again in {} s): {}", key,
                            REFRESH_MILLIS / 1000, Errors.unwrap(error).toString());
                    List<String> retry = new ArrayList<>(fields.subList(base().size(), sent));
                    retry.addAll(pending);
                    pending = retry;
                } else {
                    writeAll |= !existed && written;
                    written = true;
                }
                again = error == null && (writeAll || !pending.isEmpty());
                state = again ? State.WRITING : State.IDLE;
            }
            if (again) {
                try {
                    scheduler.execute(this::write);
                } catch (RejectedExecutionException e) {
                    LOG.debug("Identity record {} not written again: the client is closing", key, e);
                }
            }
        });
    }

    private List<String> base() {
        List<String> fields = base;
        if (fields == null) {
            fields = List.of("name", clientName, "host", host(), "pid", Long.toString(ProcessHandle.current().pid()));
            base = fields;
        }
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

    static String field(long threadId) {
        return "t:" + Long.toString(threadId, 36);
    }

    /** Stops writing; the record goes when its life ends. Idempotent. */
    synchronized void close() {
        state = State.CLOSED;
        if (refresh != null) {
            refresh.cancel(false);
        }
    }
}
