package dev.warden.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One client process of a fault run. Its threads loop until the deadline: acquire one of a few names, write to the
 * fenced store with the fencing token, hold a random short time, write again, release. Every acquisition becomes
 * one line of the history file, with System.nanoTime stamps (CLOCK_MONOTONIC, shared by every process on Linux).
 *
 * <p>Arguments: lockSpec (topology|uris) storeUri historyFile workerId threads seconds leaseMs holdMaxMs names lockKind seed,
 * where lockKind is warden-renewed, warden-fair (renewed, in fair mode), warden-fixed, naive-del or naive-getset.
 *
 * <p>On standard input the worker waits for {@code GO}; after it, {@code STRETCH <ms>} makes every hold in progress or
 * begun in the next {@code ms} milliseconds last until then, as a long job under the lock would: the run cuts the
 * worker off the network meanwhile. A stretched hold records the last validity its lease showed during the hold,
 * when the lease shows none by its release.
 */
public final class FaultWorker {
    /** How many times a worker tries to open its locks before it gives up. */
    private static final int CONNECT_ATTEMPTS = 5;

    private FaultWorker() {
    }

    public static void main(String[] args) throws Exception {
        String lockUri = args[0];
        String storeUri = args[1];
        Path historyFile = Path.of(args[2]);
        String worker = args[3];
        int threads = Integer.parseInt(args[4]);
        long seconds = Long.parseLong(args[5]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[6]));
        int holdMaxMs = Integer.parseInt(args[7]);
        String[] names = args[8].split(",");
        String kind = args[9];
        long seed = Long.parseLong(args[10]);
        try (LocksUnderTest locks = connect(kind, lockUri, lease);
             FencedStore store = new FencedStore(storeUri);
             PrintWriter history = new PrintWriter(Files.newBufferedWriter(historyFile, StandardCharsets.UTF_8))) {
            // Connected: say so, and start when the run says GO, so that every worker sees the whole schedule.
            System.out.println("READY");
            System.out.flush();
            BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            if (!"GO".equals(commands.readLine())) {
                throw new IllegalStateException("the run ended before it started");
            }
            AtomicLong stretchUntil = new AtomicLong(System.nanoTime());
            Thread listener = new Thread(() -> listen(commands, stretchUntil), "run-commands");
            listener.setDaemon(true);
            listener.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
            List<Thread> clients = new ArrayList<>();
            // A client thread that dies would leave its lock renewed forever and starve the others: the run must
            // fail on it, with the stack trace in the worker's log, not report a starved lock.
            AtomicReference<Throwable> crash = new AtomicReference<>();
            for (int t = 0; t < threads; t++) {
                String client = worker + "." + t;
                Random random = new Random(seed * 31 + t);
                Thread thread = new Thread(() -> loop(client, random, locks, store, history, deadline, names,
                        holdMaxMs, stretchUntil), "client-" + client);
                thread.setUncaughtExceptionHandler((dead, e) -> {
                    crash.compareAndSet(null, e);
                    System.out.println("client thread " + dead.getName() + " died: " + e);
                    e.printStackTrace(System.out);
                });
                clients.add(thread);
                thread.start();
            }
            // Threads at 30 % of the run and just before its end: growth in between is a leak.
            long total = deadline - System.nanoTime();
            Thread.sleep(java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(total * 3 / 10));
            int early = Thread.activeCount();
            Thread.sleep(Math.max(0, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())
                    - 300));
            int late = Thread.activeCount();
            for (Thread thread : clients) {
                thread.join();
            }
            synchronized (history) {
                history.printf("THREADS %s %d %d%n", worker, early, late);
            }
            if (crash.get() != null) {
                throw new IllegalStateException("a client thread died", crash.get());
            }
        }
    }

    /**
     * Opens the locks, trying up to {@link #CONNECT_ATTEMPTS} times: on a loaded machine a new JVM can miss the 0.5 s
     * connect timeout (a worker of each of 8 runs in 15 failed so at a load average of 24); the run has not begun.
     */
    private static LocksUnderTest connect(String kind, String uri, Duration lease) {
        for (int attempt = 1; ; attempt++) {
            try {
                return open(kind, uri, lease);
            } catch (RuntimeException e) {
                if (attempt == CONNECT_ATTEMPTS) {
                    throw e;
                }
                System.out.println("connect attempt " + attempt + " failed, trying again: " + e);
            }
        }
    }

    private static LocksUnderTest open(String kind, String uri, Duration lease) {
        return switch (kind) {
            case "warden-renewed" -> new WardenLocks(uri, lease, true, false);
            case "warden-fair" -> new WardenLocks(uri, lease, true, true);
            case "warden-fixed" -> new WardenLocks(uri, lease, false, false);
            case "warden-family" -> new FamilyLocks(uri, lease, false);
            case "naive-del" -> new NaiveLocks(uri.split("\\|")[1], lease, NaiveLocks.Flaw.DEL);
            case "naive-getset" -> new NaiveLocks(uri.split("\\|")[1], lease, NaiveLocks.Flaw.GET_SET);
            default -> throw new IllegalArgumentException("unknown lock kind: " + kind);
        };
    }

    /** Follows the run's commands until it closes the worker's standard input. */
    private static void listen(BufferedReader commands, AtomicLong stretchUntil) {
        try {
            String line;
            while ((line = commands.readLine()) != null) {
                String[] command = line.split(" ");
                if (!command[0].equals("STRETCH") || command.length != 2) {
                    throw new IllegalArgumentException("unknown command from the run: " + line);
                }
                stretchUntil.set(System.nanoTime() + Duration.ofMillis(Long.parseLong(command[1])).toNanos());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the run's commands", e);
        }
    }

    private static void loop(String client, Random random, LocksUnderTest locks, FencedStore store,
                             PrintWriter history, long deadline, String[] names, int holdMaxMs,
                             AtomicLong stretchUntil) {
        long seq = 0;
        while (System.nanoTime() - deadline < 0) {
            String name = names[random.nextInt(names.length)];
            String op = client + ":" + seq++;
            long t0 = System.nanoTime();
            LocksUnderTest.Held held;
            try {
                held = locks.acquire(name, Duration.ofSeconds(2));
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                record(history, "ERROR %s %s %d %d acquire", op, name, t0, System.nanoTime());
                pause(50);
                continue;
            }
            long t1 = System.nanoTime();
            if (held == null) {
                record(history, "TIMEOUT %s %s %d %d", op, name, t0, t1);
                continue;
            }
            long validAtAcquire = held.validUntil();
            long fence;
            try {
                fence = held.fence();
            } catch (RuntimeException e) {
                // A lock acquired without a token issues it on first use, a request that can fail like any other:
                // this turn ends without a write, and the lease is given back rather than renewed forever.
                giveBack(held);
                record(history, "ERROR %s %s %d %d fence", op, name, t0, System.nanoTime());
                pause(50);
                continue;
            }
            store.markHolder(name, ProcessHandle.current().pid());
            // Writes are not guarded by isHeld(): the fencing token alone must protect the store.
            long w1 = System.nanoTime();
            boolean first = store.write(name, fence, op + "a");
            long w1e = System.nanoTime();
            pause(random.nextInt(holdMaxMs + 1));
            long seen = stretch(held, stretchUntil);
            long w2 = System.nanoTime();
            boolean second = store.write(name, fence, op + "b");
            long w2e = System.nanoTime();
            long validUntil = held.validUntil();
            if (validUntil < 0) {
                validUntil = seen;
            }
            store.unmarkHolder(name, ProcessHandle.current().pid());
            long r0 = System.nanoTime();
            String released;
            try {
                released = Boolean.toString(held.release());
            } catch (RuntimeException e) {
                released = "error";
            }
            long r1 = System.nanoTime();
            if (released.equals("false")) {
                // The loss callback runs on a client thread; give it a bounded moment.
                long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                while (held.lostAt() < 0 && System.nanoTime() - until < 0) {
                    pause(5);
                }
            }
            record(history, "ACQ %s %s %d %d %d %d %d %s %d %d %s %d %d %d %s %d %d", op, name, fence, t0, t1,
                    w1, w1e, first, w2, w2e, second, validUntil, r0, r1, released, held.lostAt(), validAtAcquire);
        }
    }

    /**
     * Holds on while the run stretches this worker's holds ({@code STRETCH}).
     *
     * @return the last validity (System.nanoTime) the lease showed meanwhile, or -1 if it showed none or the hold
     *         was not stretched
     */
    private static long stretch(LocksUnderTest.Held held, AtomicLong stretchUntil) {
        long seen = -1;
        while (System.nanoTime() - stretchUntil.get() < 0) {
            long valid = held.validUntil();
            if (valid > 0) {
                seen = valid;
            }
            pause(10);
        }
        return seen;
    }

    /** Releases a lease whose turn failed; a failure to release is already on record as the turn's error. */
    private static void giveBack(LocksUnderTest.Held held) {
        try {
            held.release();
        } catch (RuntimeException e) {
            // The lease has stopped renewing either way; it expires within its lease.
        }
    }

    private static void record(PrintWriter history, String format, Object... args) {
        synchronized (history) {
            history.printf(format + "%n", args);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
