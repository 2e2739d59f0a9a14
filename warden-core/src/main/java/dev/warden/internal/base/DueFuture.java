package dev.warden.internal.base;

import java.util.concurrent.CompletableFuture;

/**
 * The result of an acquisition, marked due while one of its tries is in flight: a thread blocked on it may spin
 * ({@link Spinner}) while a reply that may settle it is on its way, and parks while the lock is held by another.
 */
public final class DueFuture<T> extends CompletableFuture<T> {
    private volatile boolean due;

    /** A try was sent. */
    public void due() {
        due = true;
    }

    /** A try came back without settling this future. */
    public void notDue() {
        due = false;
    }

    public boolean isDue() {
        return due;
    }
}
