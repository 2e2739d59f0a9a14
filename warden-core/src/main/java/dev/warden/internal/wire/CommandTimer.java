package dev.warden.internal.wire;

import dev.warden.Ticker;
import dev.warden.internal.base.SweepQueue;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.HashSet;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer behind Lettuce's command timeouts, at the cost of one queue append per command.
 *
 * <p>Lettuce asks its timer for one timeout per command, all of the same length, and cancels it when the answer
 * comes. Netty's hashed wheel then pays for every cancellation a second time, on its own thread. Here timeouts of
 * that common length wait in a {@link SweepQueue} in the order they were made, which is the order of their
 * deadlines, and a cancellation only sets a flag: a sweep each tick drops the cancelled ones at the head and fires
 * the expired ones. Answers come back in order on a connection, so the head is rarely held up, and never for longer
 * than the timeout (a cancelled timeout behind a live one waits for it). Timeouts of any other length (Lettuce's
 * reconnect back-off) wait in a small ordered queue.
 */
final class CommandTimer implements Timer {
    private static final Logger LOG = LoggerFactory.getLogger(CommandTimer.class);

    private final Ticker ticker;
    private final long commonNanos;
    private final SweepQueue<Entry> common = new SweepQueue<>();
    // Guarded by itself.
    private final PriorityQueue<Entry> other = new PriorityQueue<>((a, b) -> Long.compare(a.deadline - b.deadline, 0));
    private volatile ScheduledFuture<?> sweeps;
    private volatile boolean stopped;

    /**
     * @param common the length of most timeouts: the command timeout
     */
    CommandTimer(Ticker ticker, Duration common) {
        this.ticker = ticker;
        this.commonNanos = common.toNanos();
    }

    /**
     * Starts sweeping on {@code scheduler}, every quarter of the common timeout but at least every 100 ms (as
     * often as Lettuce's default timer ticks). Timeouts made before wait for the first sweep.
     */
    void start(ScheduledExecutorService scheduler) {
        long tick = Math.max(TimeUnit.MILLISECONDS.toNanos(1), Math.min(commonNanos / 4,
                TimeUnit.MILLISECONDS.toNanos(100)));
        sweeps = scheduler.scheduleWithFixedDelay(this::sweep, tick, tick, TimeUnit.NANOSECONDS);
    }

    @Override
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        if (stopped) {
            throw new IllegalStateException("the command timer of a closed client cannot schedule a timeout");
        }
        long nanos = unit.toNanos(delay);
        Entry entry = new Entry(task, ticker.read() + nanos);
        if (nanos == commonNanos) {
            common.add(entry);
        } else {
            synchronized (other) {
                other.add(entry);
            }
        }
        return entry;
    }

    @Override
    public Set<Timeout> stop() {
        stopped = true;
        ScheduledFuture<?> current = sweeps;
        if (current != null) {
            current.cancel(false);
        }
        Set<Timeout> pending = new HashSet<>();
        synchronized (common) {
            common.drain(entry -> {
                if (!entry.isCancelled()) {
                    pending.add(entry);
                }
            });
        }
        synchronized (other) {
            pending.addAll(other);
            other.clear();
        }
        return pending;
    }

    /** Fires what is due and forgets what was cancelled, up to the first timeout that is neither. */
    void sweep() {
        long now = ticker.read();
        Entry head;
        synchronized (common) {
            while ((head = common.peek()) != null) {
                if (head.isCancelled()) {
                    common.remove();
                } else if (now - head.deadline >= 0) {
                    common.remove();
                    head.fire();
                } else {
                    break;
                }
            }
        }
        while (true) {
            synchronized (other) {
                head = other.peek();
                if (head == null || (!head.isCancelled() && now - head.deadline < 0)) {
                    break;
                }
                other.poll();
            }
            head.fire();
        }
    }

    /** One timeout. Cancelling it is a flag the next sweep reads. */
    private final class Entry implements Timeout {
        private static final int WAITING = 0;
        private static final int CANCELLED = 1;
        private static final int EXPIRED = 2;
        private static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(Entry.class, "state", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final TimerTask task;
        private final long deadline;
        private volatile int state;

        Entry(TimerTask task, long deadline) {
            this.task = task;
            this.deadline = deadline;
        }

        void fire() {
            if (!STATE.compareAndSet(this, WAITING, EXPIRED)) {
                return;
            }
            try {
                task.run(this);
            } catch (Throwable e) {
                LOG.warn("a command timeout's task failed", e);
            }
        }

        @Override
        public Timer timer() {
            return CommandTimer.this;
        }

        @Override
        public TimerTask task() {
            return task;
        }

        @Override
        public boolean isExpired() {
            return state == EXPIRED;
        }

        @Override
        public boolean isCancelled() {
            return state == CANCELLED;
        }

        @Override
        public boolean cancel() {
            return STATE.compareAndSet(this, WAITING, CANCELLED);
        }
    }
}
