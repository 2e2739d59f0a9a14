package dev.warden.internal.base;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Names a client's threads. */
public final class DaemonThreads {
    private DaemonThreads() {
    }

    /** Daemon threads named {@code prefix-1}, {@code prefix-2}, ... */
    public static ThreadFactory named(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
