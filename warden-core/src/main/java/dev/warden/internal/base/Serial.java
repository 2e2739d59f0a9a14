package dev.warden.internal.base;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs tasks one at a time, in the order given, on another executor's threads: a listener's calls for one object
 * never overlap and never overtake each other. Once that executor refuses work (the client closed), tasks run on
 * the thread that gives them, still in order. A task that throws is the caller's to catch; the rest still run.
 * Lock-free.
 */
public final class Serial implements Executor {
    private final Executor executor;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();

    public Serial(Executor executor) {
        this.executor = executor;
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        schedule();
    }

    private void schedule() {
        if (!tasks.isEmpty() && draining.compareAndSet(false, true)) {
            try {
                executor.execute(this::drain);
            } catch (RejectedExecutionException e) {
                drain();
            }
        }
    }

    private void drain() {
        try {
            Runnable task;
            while ((task = tasks.poll()) != null) {
                task.run();
            }
        } finally {
            draining.set(false);
            // A task given between the last poll and the reset would otherwise wait for the next one.
            schedule();
        }
    }
}
