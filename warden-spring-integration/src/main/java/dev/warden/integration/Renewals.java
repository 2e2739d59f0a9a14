package dev.warden.integration;

import dev.warden.Lease;
import dev.warden.LeaseLostException;
import dev.warden.LockException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;

/**
 * The renewals of one {@link WardenLockRegistry}'s fixed leases on the {@link TaskScheduler} set with
 * {@code setRenewalTaskScheduler}: each held fixed lease is extended by its TTL every third of it, until its unlock,
 * its loss or the registry's {@code destroy()}. Every task it starts is in {@link #live} until cancelled, so that
 * {@link #close()} leaves none behind.
 */
final class Renewals {
    private static final Logger LOG = LoggerFactory.getLogger(Renewals.class);
    private volatile TaskScheduler scheduler;
    private volatile boolean closed;
    private final Set<Renewal> live = ConcurrentHashMap.newKeySet();

    void scheduler(TaskScheduler scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "renewalTaskScheduler");
    }

    /**
     * Starts renewing {@code lease} by {@code ttl} every {@code ttl / 3}, first one period from now.
     *
     * @return the renewal, to {@link Renewal#cancel()} at unlock; null if there is no scheduler or the registry was
     *         destroyed
     * @throws RuntimeException what the scheduler throws if it refuses the task
     */
    Renewal start(String key, Lease lease, Duration ttl) {
        TaskScheduler on = scheduler;
        if (on == null || closed) {
            return null;
        }
        Renewal renewal = new Renewal(key, lease, ttl);
        live.add(renewal);
        Duration period = Duration.ofMillis(Math.max(1, ttl.toMillis() / 3));
        try {
            renewal.scheduled(on.scheduleWithFixedDelay(renewal, Instant.now().plus(period), period));
        } catch (RuntimeException | Error e) {
            live.remove(renewal); // the scheduler refused it (shut down, say): the caller releases the lease
            throw e;
        }
        lease.onLost(renewal::cancel);
        if (closed) {
            renewal.cancel(); // destroy() ran meanwhile and may not have seen it
        }
        return renewal;
    }

    /** Cancels every renewal and starts no more. */
    void close() {
        closed = true;
        live.forEach(Renewal::cancel);
    }

    /** @return how many renewals are running, for tests */
    int live() {
        return live.size();
    }

    /** One lease's periodic extension. */
    final class Renewal implements Runnable {
        private final String key;
        private final Lease lease;
        final Duration ttl;
        private volatile ScheduledFuture<?> future;
        private volatile boolean cancelled;

        private Renewal(String key, Lease lease, Duration ttl) {
            this.key = key;
            this.lease = lease;
            this.ttl = ttl;
        }

        private void scheduled(ScheduledFuture<?> scheduled) {
            future = scheduled;
            if (cancelled) {
                scheduled.cancel(false); // cancelled before the scheduler returned it
            }
        }

        @Override
        public void run() {
            if (cancelled) {
                return;
            }
            try {
                if (!lease.extend(ttl)) {
                    // Found lost in Redis: the lease is lost now (its onLost callbacks, this one's cancel too, ran).
                    LOG.warn("lock '{}': renewal found the lease lost", key);
                    cancel();
                }
            } catch (LeaseLostException e) {
                LOG.warn("lock '{}': lease lost before its renewal", key);
                cancel();
            } catch (IllegalStateException e) {
                cancel(); // released meanwhile: an unlock raced this run
            } catch (LockException e) {
                // Redis did not answer: the lease keeps its expiry; the next run tries again, and once the local
                // deadline has passed the lease is lost and the next run stops.
                LOG.warn("lock '{}': renewal failed, retrying in {}", key, ttl.dividedBy(3), e);
            } catch (RuntimeException e) {
                LOG.warn("lock '{}': renewal failed, retrying in {}", key, ttl.dividedBy(3), e);
            }
        }

        /** Stops the renewal; idempotent, from any thread. A run in progress finishes; no other starts. */
        void cancel() {
            cancelled = true;
            ScheduledFuture<?> scheduled = future;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
            live.remove(this);
        }
    }
}
