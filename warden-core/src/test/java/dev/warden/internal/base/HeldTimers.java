package dev.warden.internal.base;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A client's scheduler ({@code LockConfig.Builder.scheduler}) for the interleaving tests: the one-shot timers of the
 * classes it is told to hold (an acquisition's wait and hold-back timers) do not run by themselves but wait for the
 * test thread to {@link #fire} them, so that a timer is one more event the test delivers in its chosen order; every
 * other task (the watchdog's ticks, command timeouts, the notifier's linger) runs on a real thread as usual.
 */
public final class HeldTimers extends ScheduledThreadPoolExecutor {
    private final Set<Class<?>> held;
    /** Guarded by itself. */
    private final List<Timer> pending = new ArrayList<>();

    /** @param held the classes whose one-shot timers are held: a timer's task is a method reference of one */
    public HeldTimers(Set<Class<?>> held) {
        super(1, DaemonThreads.named("held-timers"));
        this.held = Set.copyOf(held);
        setRemoveOnCancelPolicy(true);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        if (!held.contains(command.getClass().getNestHost())) {
            return super.schedule(command, delay, unit);
        }
        Timer timer = new Timer(command, System.nanoTime() + unit.toNanos(delay));
        synchronized (pending) {
            pending.add(timer);
        }
        return timer;
    }

    /** @return how many held timers wait to be fired (not cancelled, not fired) */
    public int pending() {
        synchronized (pending) {
            pending.removeIf(Timer::isDone);
            return pending.size();
        }
    }

    /**
     * Runs every held timer that is still pending, on the calling thread, in the order they were set; timers set
     * while they run wait for the next call.
     *
     * @return how many ran
     */
    public int fire() {
        List<Timer> due;
        synchronized (pending) {
            due = new ArrayList<>(pending);
            pending.clear();
        }
        int ran = 0;
        for (Timer timer : due) {
            ran += timer.run() ? 1 : 0;
        }
        return ran;
    }

    /** Cancels every held timer still pending. */
    public void drop() {
        synchronized (pending) {
            pending.forEach(timer -> timer.cancel(false));
            pending.clear();
        }
    }

    /** A held one-shot timer: cancelled by its owner, or run once by {@link #fire}. */
    private static final class Timer implements ScheduledFuture<Object> {
        private final Runnable task;
        private final long dueAt;
        /** 0 pending, 1 ran, 2 cancelled. Guarded by this. */
        private int state;

        Timer(Runnable task, long dueAt) {
            this.task = task;
            this.dueAt = dueAt;
        }

        boolean run() {
            synchronized (this) {
                if (state != 0) {
                    return false;
                }
                state = 1;
            }
            task.run();
            return true;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueAt - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public synchronized boolean cancel(boolean mayInterruptIfRunning) {
            if (state != 0) {
                return false;
            }
            state = 2;
            return true;
        }

        @Override
        public synchronized boolean isCancelled() {
            return state == 2;
        }

        @Override
        public synchronized boolean isDone() {
            return state != 0;
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException("a held timer is fired by the test");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException("a held timer is fired by the test");
        }
    }
}
