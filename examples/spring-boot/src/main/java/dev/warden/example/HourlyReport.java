package dev.warden.example;

import dev.warden.spring.CurrentLease;
import dev.warden.spring.Locked;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A scheduled job that every instance schedules and one runs per period: the instance that takes the lock runs it
 * and keeps the lock for most of the period, so the others' triggers in that period skip it.
 */
@Component
public class HourlyReport {
    /** The runs on this instance, as {System.nanoTime(), fencing token} pairs. */
    private final List<long[]> runs = new CopyOnWriteArrayList<>();

    @Scheduled(fixedRateString = "${reports.period:PT1H}")
    @Locked(value = "reports:hourly", onNotAcquired = Locked.OnNotAcquired.SKIP,
            holdAtLeast = "${reports.hold-at-least:PT55M}")
    public void run() {
        // A store that keeps the highest fence it saw would refuse a write from a holder that lost the lock.
        runs.add(new long[] {System.nanoTime(), CurrentLease.require().fencingToken()});
    }

    /** @return when the runs on this instance started ({@code System.nanoTime()}) and their fencing tokens */
    public List<long[]> runs() {
        return List.copyOf(runs);
    }
}
