package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** A thread per core that spins until closed, to widen a race's window by taking the CPU from the threads in it. */
final class Burners implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();

    static Burners start() {
        Burners burners = new Burners();
        for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
            Thread thread = new Thread(() -> {
                long x = 0;
                while (!burners.stop.get()) {
                    x = x * 31 + 7;
                }
                if (x == 42) {
                    System.out.print("");
                }
            }, "cpu-burner-" + i);
            thread.setDaemon(true);
            burners.threads.add(thread);
            thread.start();
        }
        return burners;
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(thread.isAlive()).as("burner %s stopped", thread.getName()).isFalse();
        }
    }
}
