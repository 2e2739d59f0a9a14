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
 * where lockKind is warden-renewed, warden-fair (renewed, in fair mode), warden-fixed, naive-del or naive-getset, or
 * one of the surfaces of {@link SurfaceLocks} (asLock, the registry, multi-locks, async, ShedLock, and their mutants),
 * or warden-leader / naive-leader, whose workers are candidates of an election instead ({@link LeaderWorker}).
 *
 * <p>On standard input the worker waits for {@code GO}; after it, {@code STRETCH <ms>} makes every hold in progress or
 * begun in the next {@code ms} milliseconds last until then, as a long job under the lock would: the run slows the
 * worker's network meanwhile. {@code STRETCH-HELD <ms>} stretches only the holds in progress, and notes their
 * names in the store, for the run to strike once one is: its administrator forces it free, or it cuts the worker
 * off the network. {@code CLOSE} closes the worker's client
 * mid-flight and opens another. A stretched hold records the last validity its lease showed during the hold,
 * when the lease shows none by its release.
 */
public final class FaultWorker {
    /** A resource closed at the end of the worker, whichever client it holds then. */
    private interface Closer extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * While not 0: the instant of a {@code STRETCH-HELD}, which stretches only the holds acquired before it; each
     * such hold notes its name in the store while stretched ({@link FencedStore#markStretched}).
     */
    private static volatile long heldOnlyBefore;

    /** Whether this thread's last hold was stretched by a {@code STRETCH-HELD}. */
    private static final ThreadLocal<Boolean> STRETCHED_ALONE = ThreadLocal.withInitial(() -> false);

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
        if (kind.endsWith("-leader")) {
            LeaderWorker.main(args);
            return;
        }
        AtomicReference<LocksUnderTest> locks = new AtomicReference<>(connect(kind, lockUri, lease));
        try (Closer closer = () -> locks.get().close();
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
            Thread listener = new Thread(() -> listen(commands, stretchUntil, () -> {
                // CLOSE: the client is closed under its threads, mid-flight, then another one opened.
                long c0 = System.nanoTime();
                LocksUnderTest closed = locks.get();
                closed.close();
                long c1 = System.nanoTime();
                record(history, "CLOSED %s %d %d", worker, c0, c1);
                locks.set(connect(kind, lockUri, lease));
                probeClosed(closed, worker, names[0], history);
            }), "run-commands");
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
            default -> SurfaceLocks.open(kind, uri, lease);
        };
    }

    /**
     * An acquire on the client just closed must end at once (an exception, or not acquired), not hang: one is
     * started, and recorded as hung if it has not ended within 3 s.
     */
    private static void probeClosed(LocksUnderTest closed, String worker, String name, PrintWriter history) {
        long t0 = System.nanoTime();
        Thread probe = new Thread(() -> {
            try {
                LocksUnderTest.Held held = closed.acquire(name, Duration.ofMillis(100));
                if (held != null) {
                    record(history, "HUNG %s.probe:0 %s %d acquire-on-a-closed-client-granted", worker, name, t0);
                }
            } catch (InterruptedException | RuntimeException e) {
                // Refused, as it should be.
            }
        }, "closed-client-probe");
        probe.setDaemon(true);
        probe.start();
        try {
            probe.join(3000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (probe.isAlive()) {
            record(history, "HUNG %s.probe:0 %s %d acquire-on-a-closed-client", worker, name, t0);
        }
    }

    /** Follows the run's commands until it closes the worker's standard input. */
    private static void listen(BufferedReader commands, AtomicLong stretchUntil, Runnable close) {
        try {
            String line;
            while ((line = commands.readLine()) != null) {
                String[] command = line.split(" ");
                if (command[0].equals("CLOSE")) {
                    close.run();
                    continue;
                }
                if (!command[0].startsWith("STRETCH") || command.length != 2) {
                    throw new IllegalArgumentException("unknown command from the run: " + line);
                }
                long now = System.nanoTime();
                // STRETCH-HELD: only the holds in progress now; STRETCH: those and the holds begun meanwhile.
                heldOnlyBefore = command[0].equals("STRETCH-HELD") ? now : 0;
                stretchUntil.set(now + Duration.ofMillis(Long.parseLong(command[1])).toNanos());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the run's commands", e);
        }
    }

    private static void loop(String client, Random random, AtomicReference<LocksUnderTest> current,
                             FencedStore store, PrintWriter history, long deadline, String[] names, int holdMaxMs,
                             AtomicLong stretchUntil) {
        long seq = 0;
        while (System.nanoTime() - deadline < 0) {
            LocksUnderTest locks = current.get();
            String name = pick(random, names, locks.parts());
            String op = client + ":" + seq++;
            long t0 = System.nanoTime();
            LocksUnderTest.Held held;
            try {
                held = locks.acquire(name, Duration.ofSeconds(2));
            } catch (InterruptedException e) {
                return;
            } catch (LocksUnderTest.Hung e) {
                record(history, "HUNG %s %s %d %s", op, name, t0, e.getMessage());
                continue;
            } catch (RuntimeException e) {
                record(history, "ERROR %s %s %d %d acquire", op, name, t0, System.nanoTime());
                pause(50);
                continue;
            }
            long t1 = System.nanoTime();
            if (held == null) {
                String heldAfter;
                try {
                    heldAfter = locks.heldAfterMiss(name);
                } catch (RuntimeException e) {
                    heldAfter = null;
                }
                if (heldAfter != null) {
                    record(history, "MISS %s %s %d %d %s", op, name, t0, t1, heldAfter);
                }
                record(history, "TIMEOUT %s %s %d %d", op, name, t0, t1);
                continue;
            }
            if (!held.fenced()) {
                view(op, name, held, t0, t1, random, store, history, holdMaxMs, stretchUntil);
                continue;
            }
            if (held.names() != null) {
                multi(op, held, t0, t1, random, store, history, holdMaxMs, stretchUntil);
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
            long seen = stretch(held, stretchUntil, t1, name, store);
            int depth = reenter(op, name, held, random, history);
            long w2 = System.nanoTime();
            boolean second = store.write(name, fence, op + "b");
            long w2e = System.nanoTime();
            long validUntil = held.validUntil();
            if (validUntil < 0) {
                validUntil = seen;
            }
            store.unmarkHolder(name, ProcessHandle.current().pid());
            exit(held, depth);
            long r0 = System.nanoTime();
            String released = release(held);
            long r1 = System.nanoTime();
            awaitLossReport(held, released);
            record(history, "ACQ %s %s %d %d %d %d %d %s %d %d %s %d %d %d %s %d %d", op, name, fence, t0, t1,
                    w1, w1e, first, w2, w2e, second, validUntil, r0, r1, released, held.lostAt(), validAtAcquire);
        }
    }

    /** One name, or for a multi-lock distinct names joined by '+'. */
    private static String pick(Random random, String[] names, int parts) {
        if (parts <= 1) {
            return names[random.nextInt(names.length)];
        }
        List<String> left = new ArrayList<>(List.of(names));
        java.util.Collections.shuffle(left, random);
        return String.join("+", left.subList(0, Math.min(parts, left.size())));
    }

    /**
     * After the hold (so after any stall or stretch), acquires again reentrantly 0-3 times at random: each call
     * that tells the caller "held" is a claim; one that tells it the lease was lost ends the reentry.
     *
     * @return how many reentrant holds were taken, to {@link #exit} before the outer release
     */
    private static int reenter(String op, String name, LocksUnderTest.Held held, Random random, PrintWriter history) {
        if (!held.reentrant()) {
            return 0;
        }
        // A hold the run stretched alone (STRETCH-HELD: a long job, whose lock the administrator forces free)
        // re-enters at least once after its long step.
        int wanted = STRETCHED_ALONE.get() ? 1 + random.nextInt(3) : random.nextInt(4);
        STRETCHED_ALONE.set(false);
        int depth = 0;
        for (int i = 0; i < wanted; i++) {
            long c0 = System.nanoTime();
            try {
                boolean claimed = held.reenter();
                long c1 = System.nanoTime();
                if (!claimed) {
                    record(history, "TOLD %s %s %d %d", op, name, c0, c1);
                    break;
                }
                record(history, "CLAIM %s %s %d %d reentrant", op, name, c0, c1);
                depth++;
            } catch (dev.warden.LeaseLostException e) {
                record(history, "TOLD %s %s %d %d", op, name, c0, System.nanoTime());
                break;
            } catch (RuntimeException e) {
                // Redis failed to answer (LockException), or the client was closed: not a claim.
                record(history, "ERROR %s %s %d %d reenter", op, name, c0, System.nanoTime());
                break;
            }
        }
        return depth;
    }

    /** Releases the reentrant holds, innermost first; the outer release follows. */
    private static void exit(LocksUnderTest.Held held, int depth) {
        for (int i = 0; i < depth; i++) {
            try {
                held.exit();
            } catch (RuntimeException e) {
                // An inner unlock only counts down; the outer release reports how the hold ended.
            }
        }
    }

    /**
     * A hold through a surface that shows no lease (a Lock view, ShedLock): claims only, no writes (there is no
     * token to write with), the same hold and stretch, then reentry, then the release.
     */
    private static void view(String op, String name, LocksUnderTest.Held held, long t0, long t1, Random random,
                             FencedStore store, PrintWriter history, int holdMaxMs, AtomicLong stretchUntil) {
        record(history, "CLAIM %s %s %d %d outer", op, name, t0, t1);
        long pid = ProcessHandle.current().pid();
        store.markHolder(name, pid);
        pause(random.nextInt(holdMaxMs + 1));
        stretch(held, stretchUntil, t1, name, store);
        int depth = reenter(op, name, held, random, history);
        store.unmarkHolder(name, pid);
        exit(held, depth);
        try {
            held.release();
        } catch (RuntimeException e) {
            // A release of a lost lease throws (LeaseLostException, ConcurrentModificationException): told lost.
        }
    }

    /**
     * A multi-lock's hold: one acquisition per part, each with the part's token and the multi-lease's validity,
     * written to each part's store key.
     */
    private static void multi(String op, LocksUnderTest.Held held, long t0, long t1, Random random,
                              FencedStore store, PrintWriter history, int holdMaxMs, AtomicLong stretchUntil) {
        List<String> parts = held.names();
        long validAtAcquire = held.validUntil();
        long[] fences = new long[parts.size()];
        try {
            for (int i = 0; i < fences.length; i++) {
                fences[i] = held.fence(parts.get(i));
            }
        } catch (RuntimeException e) {
            giveBack(held);
            record(history, "ERROR %s %s %d %d fence", op, String.join("+", parts), t0, System.nanoTime());
            pause(50);
            return;
        }
        long pid = ProcessHandle.current().pid();
        long[][] w1 = new long[parts.size()][3];
        for (int i = 0; i < fences.length; i++) {
            store.markHolder(parts.get(i), pid);
            w1[i][0] = System.nanoTime();
            w1[i][2] = store.write(parts.get(i), fences[i], op + "a") ? 1 : 0;
            w1[i][1] = System.nanoTime();
        }
        pause(random.nextInt(holdMaxMs + 1));
        long seen = stretch(held, stretchUntil, t1, parts.get(0), store);
        long[][] w2 = new long[parts.size()][3];
        for (int i = 0; i < fences.length; i++) {
            w2[i][0] = System.nanoTime();
            w2[i][2] = store.write(parts.get(i), fences[i], op + "b") ? 1 : 0;
            w2[i][1] = System.nanoTime();
        }
        long validUntil = held.validUntil();
        if (validUntil < 0) {
            validUntil = seen;
        }
        parts.forEach(part -> store.unmarkHolder(part, pid));
        long r0 = System.nanoTime();
        String released = release(held);
        long r1 = System.nanoTime();
        awaitLossReport(held, released);
        for (int i = 0; i < fences.length; i++) {
            record(history, "ACQ %s %s %d %d %d %d %d %s %d %d %s %d %d %d %s %d %d", op, parts.get(i), fences[i], t0,
                    t1, w1[i][0], w1[i][1], w1[i][2] == 1, w2[i][0], w2[i][1], w2[i][2] == 1, validUntil, r0, r1,
                    released, held.lostAt(), validAtAcquire);
        }
    }

    /**
     * Holds on while the run stretches this worker's holds ({@code STRETCH}).
     *
     * @return the last validity (System.nanoTime) the lease showed meanwhile, or -1 if it showed none or the hold
     *         was not stretched
     */
    private static long stretch(LocksUnderTest.Held held, AtomicLong stretchUntil, long acquired, String name,
                                FencedStore store) {
        long seen = -1;
        boolean marked = false;
        STRETCHED_ALONE.set(false);
        long pid = ProcessHandle.current().pid();
        while (System.nanoTime() - stretchUntil.get() < 0) {
            long before = heldOnlyBefore;
            if (before != 0) {
                if (acquired - before >= 0) {
                    break;
                }
                if (!marked) {
                    store.markStretched(name, pid);
                    marked = true;
                    STRETCHED_ALONE.set(true);
                }
            }
            long valid = held.validUntil();
            if (valid > 0) {
                seen = valid;
            }
            pause(10);
        }
        if (marked) {
            store.unmarkStretched(name, pid);
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

    /** Releases; "true", "false", or "error" when the release threw (loud: a timeout, a lost connection). */
    private static String release(LocksUnderTest.Held held) {
        try {
            return Boolean.toString(held.release());
        } catch (RuntimeException e) {
            return "error";
        }
    }

    /** After a release that returned false: the loss callback runs on a client thread; give it a bounded moment. */
    private static void awaitLossReport(LocksUnderTest.Held held, String released) {
        if (released.equals("false")) {
            long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (held.lostAt() < 0 && System.nanoTime() - until < 0) {
                pause(5);
            }
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
