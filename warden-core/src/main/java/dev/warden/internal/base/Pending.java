package dev.warden.internal.base;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The acquisitions of one client that wait for an answer or a wake-up, so that closing the client can fail them.
 * An acquisition added after {@link #close()} is told so by {@link #add}'s result; one added just before is in
 * {@link #all()}: either way it is failed. Concurrent, no lock.
 *
 * @param <T> the kind of acquisition
 */
public final class Pending<T> {
    private final Set<T> waiting = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** @return false if the client is closed: the caller must fail the acquisition itself */
    public boolean add(T acquisition) {
        waiting.add(acquisition);
        return !closed;
    }

    public void remove(T acquisition) {
        waiting.remove(acquisition);
    }

    /** Refuses every later {@link #add}. */
    public void close() {
        closed = true;
    }

    /** @return the acquisitions waiting now: a copy */
    public List<T> all() {
        return new ArrayList<>(waiting);
    }
}
