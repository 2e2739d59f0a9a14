package dev.warden.faults;

import dev.warden.Lease;
import dev.warden.LockClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The administrator of a fault run, in the test JVM: forces a lock free ({@code forceRelease}) and takes it for a
 * while, as one would to repair what it protects. Its forceReleases ({@code FORCE}) and holds ({@code ACQ}, a full
 * holder with fenced writes) go to a history file of its own, merged with the workers'.
 */
final class Admin implements AutoCloseable {
    /** How long the administrator holds a lock it forced free. */
    static final Duration HOLD = Duration.ofMillis(300);

    /** Something to do once the administrator holds the lock (or gave up on it). */
    interface Then {
        void run() throws IOException, InterruptedException;
    }

    private final LockClient client;
    private final FencedStore store;
    private final PrintWriter history;
    private int seq;

    Admin(String spec, Duration lease, FencedStore store, Path file) throws IOException {
        // Not a client under test: a long command timeout, so that a loaded machine does not fail the run here.
        this.client = LockClient.create(LockTarget.configure(spec)
                .defaultLease(lease).commandTimeout(Duration.ofSeconds(5)).build());
        this.store = store;
        this.history = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8));
        // Open the client's pub/sub connection now, by waiting once, so that the run's connection count (sampled
        // at 30 % of the workload and at its end) does not see it appear mid-run.
        // Best effort: the leak check allows a connection more.
        try (LockClient other = LockClient.create(LockTarget.configure(spec)
                .defaultLease(lease).commandTimeout(Duration.ofSeconds(5)).build());
             Lease warm = other.lock("admin-warm-up").tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
            client.lock("admin-warm-up").tryAcquire(Duration.ofMillis(50));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (dev.warden.LockException e) {
            System.out.println("admin: warm-up failed, going on: " + e);
        }
    }

    /**
     * Forces {@code name} free, takes it (waiting up to 2 s), runs {@code then}, holds it {@link #HOLD}, releases.
     *
     * @param half for a family run's role: force only the holders of that role (the readers, or the writer), not
     *             the whole read-write lock; a semaphore's permits are forced all at once either way
     */
    void forceAndHold(String name, boolean half, Then then) throws IOException, InterruptedException {
        // A family run's role ("prices#r"): the whole read-write lock or semaphore is forced (FORCE names its base),
        // or one half of a read-write lock (FORCE names the role), and the administrator takes the write lock, or a
        // permit.
        boolean family = name.indexOf('#') >= 0;
        boolean alone = half && family && !FamilyLocks.semaphore(name);
        long f0 = System.nanoTime();
        OptionalLong removed = family ? FamilyLocks.forceRelease(client, name, alone)
                : client.lock(name).forceRelease();
        long f1 = System.nanoTime();
        // -1: nobody was removed (the lock was free by then); a holder without a token yet gets one issued.
        history.printf("FORCE %s %d %d %d%n", family && !alone ? FamilyLocks.base(name) : name, f0, f1,
                removed.isPresent() ? removed.getAsLong() : -1);
        if (family && FamilyLocks.role(name).equals("r")) {
            name = FamilyLocks.base(name) + "#w";
        }
        String op = "admin.0:" + seq++;
        long t0 = System.nanoTime();
        Optional<Lease> got = family ? FamilyLocks.tryAcquire(client, name, Duration.ofSeconds(2))
                : client.lock(name).tryAcquire(Duration.ofSeconds(2));
        long t1 = System.nanoTime();
        if (got.isEmpty()) {
            history.printf("TIMEOUT %s %s %d %d%n", op, name, t0, t1);
            then.run();
            return;
        }
        hold(op, name, got.get(), t0, t1, () -> {
            then.run();
            TimeUnit.MILLISECONDS.sleep(HOLD.toMillis());
        });
    }

    /**
     * Takes every permit of each semaphore named at once, one thread a permit, each waiting up to {@code wait}; a
     * semaphore's permits taken are released together once each of its threads has its answer. A semaphore whose
     * permits free again shows it only when all are held at once, which the workers alone may not want in time.
     */
    void fill(List<String> semaphores, Duration wait) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (String name : semaphores) {
            int permits = FamilyLocks.permits(name);
            int probe = seq++;
            CountDownLatch answered = new CountDownLatch(permits);
            for (int p = 0; p < permits; p++) {
                String op = "admin." + (threads.size() + 1) + ":" + probe;
                Thread thread = new Thread(() -> fillOne(op, name, wait, answered), "admin-fill-" + op);
                thread.start();
                threads.add(thread);
            }
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private void fillOne(String op, String name, Duration wait, CountDownLatch answered) {
        try {
            long t0 = System.nanoTime();
            Optional<Lease> got;
            long t1;
            try {
                got = FamilyLocks.tryAcquire(client, name, wait);
            } finally {
                // Before the others may release: the last permit's grant is an instant all are held.
                t1 = System.nanoTime();
                answered.countDown();
            }
            if (got.isEmpty()) {
                history.printf("TIMEOUT %s %s %d %d%n", op, name, t0, t1);
                return;
            }
            hold(op, name, got.get(), t0, t1, answered::await);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | dev.warden.LockException e) {
            System.out.println("admin: filling " + name + " failed: " + e);
        }
    }

    /** Writes through a lease taken at {@code t1}, runs {@code whileHeld}, writes again, releases: an ACQ line. */
    private void hold(String op, String name, Lease lease, long t0, long t1, Then whileHeld)
            throws IOException, InterruptedException {
        LocksUnderTest.Held held = WardenLocks.held(lease);
        long validAtAcquire = held.validUntil();
        long fence = held.fence();
        long w1 = System.nanoTime();
        boolean first = store.write(name, fence, op + "a");
        long w1e = System.nanoTime();
        whileHeld.run();
        long w2 = System.nanoTime();
        boolean second = store.write(name, fence, op + "b");
        long w2e = System.nanoTime();
        long validUntil = held.validUntil();
        long r0 = System.nanoTime();
        boolean released = held.release();
        long r1 = System.nanoTime();
        history.printf("ACQ %s %s %d %d %d %d %d %s %d %d %s %d %d %d %s %d %d%n", op, name, fence, t0, t1, w1, w1e,
                first, w2, w2e, second, validUntil, r0, r1, released, held.lostAt(), validAtAcquire);
    }

    @Override
    public void close() {
        history.close();
        client.close();
    }
}
