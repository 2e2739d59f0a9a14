package dev.warden.internal.base;

import dev.warden.Leadership;
import dev.warden.LockException;
import dev.warden.LockListener;
import dev.warden.Term;
import dev.warden.Ticker;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers a client's events to its {@link LockListener} on a thread of its own, so that a listener that is slow,
 * blocks or throws never touches a lock's path: producers only add to a bounded queue, and drop (and count) what
 * does not fit. Without a listener, {@link #on()} is false and producers build nothing.
 *
 * <p>The queue is lock-free, and producers do not signal the delivering thread while events keep coming: it
 * drains what is queued, then naps for {@value #NAP_MICROS} µs, and only after {@value #IDLE_MILLIS} ms without
 * events does it sleep until a producer wakes it. A wake-up per event (a blocking queue's, or an unpark each time
 * the thread caught up) cost a quarter of the throughput of 16 threads locking their own keys on two cores; a
 * nap costs an event at most that much delay.
 */
public final class Events {
    private static final Logger LOG = LoggerFactory.getLogger(Events.class);
    private static final long NAP_NANOS = TimeUnit.MICROSECONDS.toNanos(Events.NAP_MICROS);
    private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(Events.IDLE_MILLIS);
    /** Events kept for a listener that falls behind; beyond, new ones are dropped. */
    static final int CAPACITY = 8_192;
    private static final long DROP_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How long the delivering thread naps when it caught up while events keep coming. */
    static final long NAP_MICROS = 500;
    /** How long without events before it sleeps until woken. */
    static final long IDLE_MILLIS = 50;

    private final LockListener listener;
    private final Ticker ticker;
    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    /** Events in the queue, for its bound. */
    private final AtomicInteger size = new AtomicInteger();
    private final Thread thread;
    /** Whether the delivering thread has found the queue empty and parks (or is about to): producers wake it. */
    private volatile boolean sleeping;
    /** Set by {@link #close}: the thread delivers what is queued, then ends; new events are dropped. */
    private volatile boolean closing;
    private final AtomicLong dropped = new AtomicLong();
    /** When the last warning about dropped events was logged. Read and written by producers, racily: a log hint. */
    private volatile long droppedLoggedAt;

    private Events(LockListener listener, Ticker ticker, String threadName) {
        this.listener = listener;
        this.ticker = ticker;
        if (listener == null) {
            this.thread = null;
        } else {
            this.thread = new Thread(this::deliver, threadName);
            thread.setDaemon(true);
            thread.start();
        }
    }

    /** Starts delivery to {@code listener} on a thread named {@code threadName}; none if the listener is null. */
    public static Events start(LockListener listener, Ticker ticker, String threadName) {
        return new Events(listener, ticker, threadName);
    }

    /** @return whether a listener is set: producers skip building events when not */
    public boolean on() {
        return listener != null;
    }

    Ticker ticker() {
        return ticker;
    }

    /** Starts watching one acquire call; a no-op watch when there is no listener. */
    public AcquireWatch watchAcquire(String lock) {
        return on() ? new AcquireWatch(this, lock, ticker.read()) : AcquireWatch.NONE;
    }

    void waiting(String lock) {
        offer(() -> listener.onWaiting(lock));
    }

    void acquire(LockListener.Acquire event) {
        offer(() -> listener.onAcquire(event));
    }

    /** A release, with the hold measured from {@code grantSentAt}. */
    public void released(String lock, long grantSentAt) {
        if (on()) {
            LockListener.Release event = new LockListener.Release(lock, since(grantSentAt));
            offer(() -> listener.onRelease(event));
        }
    }

    public void lost(String lock, long grantSentAt, LockListener.Cause cause, String detail) {
        if (on()) {
            LockListener.Loss event = new LockListener.Loss(lock, since(grantSentAt), cause, detail);
            offer(() -> listener.onLost(event));
        }
    }

    public void renewal(int leases, long lateNanos, long sentAt, Throwable error) {
        if (on()) {
            LockListener.Renewal event = new LockListener.Renewal(leases, Duration.ofNanos(Math.max(0, lateNanos)),
                    since(sentAt), error == null ? null : Errors.translate(error, "renewal of " + leases + " leases"));
            offer(() -> listener.onRenewal(event));
        }
    }

    /** A candidate of an election was elected, for {@code term}. */
    public void elected(Term term) {
        if (on()) {
            offer(() -> listener.onElected(term));
        }
    }

    /** A candidate's {@code term} ended, for {@code why}. */
    public void revoked(Term term, Leadership.Revocation why) {
        if (on()) {
            offer(() -> listener.onRevoked(term, why));
        }
    }

    /** The time from {@code start} (a {@link Ticker} reading) until now. */
    Duration since(long start) {
        return Duration.ofNanos(Math.max(0, ticker.read() - start));
    }

    private void offer(Runnable event) {
        if (closing) {
            return;
        }
        if (size.incrementAndGet() <= CAPACITY) {
            queue.add(event);
            if (sleeping) {
                LockSupport.unpark(thread);
            }
            return;
        }
        size.decrementAndGet();
        long count = dropped.incrementAndGet();
        long now = System.nanoTime();
        if (count == 1 || now - droppedLoggedAt > DROP_LOG_INTERVAL_NANOS) {
            droppedLoggedAt = now;
            LOG.warn("lock listener {} is {} events behind: {} events dropped so far", listener, CAPACITY, count);
        }
    }

    /** @return how many events did not fit in the queue */
    long dropped() {
        return dropped.get();
    }

    private void deliver() {
        long lastEvent = System.nanoTime();
        while (true) {
            // Only close() interrupts, once the listener took too long to finish; a listener's own is cleared.
            if (Thread.interrupted() && closing) {
                return;
            }
            Runnable event = queue.poll();
            if (event == null) {
                if (closing) {
                    return;
                }
                if (System.nanoTime() - lastEvent < IDLE_NANOS) {
                    LockSupport.parkNanos(this, NAP_NANOS);
                    continue;
                }
                sleeping = true;
                // A producer that added before it saw sleeping is found here; one after it wakes this thread.
                if (queue.isEmpty() && !closing) {
                    LockSupport.park(this);
                }
                sleeping = false;
                continue;
            }
            lastEvent = System.nanoTime();
            size.decrementAndGet();
            try {
                event.run();
            } catch (RuntimeException | Error e) {
                LOG.warn("lock listener {} threw; the event is skipped", listener, e);
            }
        }
    }

    /**
     * Delivers what is queued, for at most {@code awaitNanos}, then stops the thread. Events offered after this are
     * dropped.
     */
    public void close(long awaitNanos) {
        if (thread == null) {
            return;
        }
        closing = true;
        LockSupport.unpark(thread);
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(awaitNanos)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn("lock listener {} did not finish its events on close; they are dropped", listener);
            thread.interrupt();
        }
    }

    /**
     * One acquire call's events: {@link #waiting()} at most once, then its end. Shared by the threads that complete
     * the call, hence the volatile flag (set once, by the acquisition's own callbacks, before the end).
     */
    public static class AcquireWatch {
        public static final AcquireWatch NONE = new AcquireWatch(null, null, 0) {
            @Override
            public void waiting() {
            }

            @Override
            public void ended(Optional<?> lease, Throwable error) {
            }
        };

        private final Events events;
        private final String lock;
        private final long startedAt;
        /** Whether the call waited, reported once however many of its tries find the lock held. */
        private final AtomicBoolean waited = new AtomicBoolean();

        AcquireWatch(Events events, String lock, long startedAt) {
            this.events = events;
            this.lock = lock;
            this.startedAt = startedAt;
        }

        /** The call found the lock held and waits: reported once, however often and from whichever thread told. */
        public void waiting() {
            if (waited.compareAndSet(false, true)) {
                events.waiting(lock);
            }
        }

        /** The call ended with {@code lease} (empty if not acquired), or with {@code error}. Never throws. */
        public void ended(Optional<?> lease, Throwable error) {
            try {
                report(lease, error);
            } catch (RuntimeException e) {
                LOG.warn("could not report the end of an acquire of lock '{}'", lock, e);
            }
        }

        private void report(Optional<?> lease, Throwable error) {
            LockListener.Outcome outcome;
            LockException failure = null;
            if (error == null) {
                outcome = lease.isPresent() ? LockListener.Outcome.ACQUIRED : LockListener.Outcome.NOT_ACQUIRED;
            } else if (Errors.unwrap(error) instanceof CancellationException) {
                outcome = LockListener.Outcome.NOT_ACQUIRED;
            } else {
                outcome = LockListener.Outcome.FAILED;
                failure = Errors.translate(error, "acquire of lock '" + lock + "'");
            }
            events.acquire(new LockListener.Acquire(lock, outcome, events.since(startedAt), waited.get(), failure));
        }
    }
}
