package dev.warden.integration;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * A real {@link ThreadPoolTaskScheduler} that remembers every task scheduled on it, so that a test can tell whether
 * a registry left one running. Cancelled tasks leave its queue at once (remove-on-cancel).
 */
final class RecordingScheduler implements TaskScheduler, AutoCloseable {
    private final ThreadPoolTaskScheduler delegate = new ThreadPoolTaskScheduler();
    private final List<ScheduledFuture<?>> scheduled = new CopyOnWriteArrayList<>();

    RecordingScheduler() {
        delegate.setPoolSize(2);
        delegate.setRemoveOnCancelPolicy(true);
        delegate.setThreadNamePrefix("renewals-");
        delegate.initialize();
    }

    /** @return the tasks scheduled so far */
    List<ScheduledFuture<?>> scheduled() {
        return List.copyOf(scheduled);
    }

    /** @return how many tasks are scheduled and neither cancelled nor done */
    long live() {
        return scheduled.stream().filter(f -> !f.isDone()).count();
    }

    /** @return how many tasks wait in the executor's queue (cancelled ones are removed from it) */
    int queued() {
        return delegate.getScheduledThreadPoolExecutor().getQueue().size();
    }

    private <F extends ScheduledFuture<?>> F record(F future) {
        scheduled.add(future);
        return future;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
        return record(delegate.schedule(task, trigger));
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
        return record(delegate.schedule(task, startTime));
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
        return record(delegate.scheduleAtFixedRate(task, startTime, period));
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
        return record(delegate.scheduleAtFixedRate(task, period));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
        return record(delegate.scheduleWithFixedDelay(task, startTime, delay));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
        return record(delegate.scheduleWithFixedDelay(task, delay));
    }

    @Override
    public void close() {
        delegate.shutdown();
    }
}
