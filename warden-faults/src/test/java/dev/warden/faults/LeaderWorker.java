package dev.warden.faults;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.Leadership;
import dev.warden.LeadershipListener;
import dev.warden.LockClient;
import dev.warden.Term;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A worker of a leadership run (kind {@code warden-leader}, or the mutant {@code naive-leader}): a few candidates of
 * one election (the first name), each re-created at random, stepping down at random while it leads. Same
 * arguments, commands ({@code GO}, {@code CLOSE}; a {@code STRETCH} is ignored: a candidate has no hold to stretch)
 * and clock (System.nanoTime, CLOCK_MONOTONIC, shared by every process) as {@link FaultWorker}, and one more:
 * {@code STOP} ends the workload (as does the end of standard input). The run says it once the workload's seconds
 * are over and the last fault has been over for a while ({@link FaultRun}): a failover may outlast the seconds, and
 * a leader must be seen again after it. Without it, the worker stops {@link #OVERRUN} after its seconds. History
 * lines:
 *
 * <ul>
 *   <li>{@code JOIN c t}: candidate {@code c} was created (it waits in the queue from then on);</li>
 *   <li>{@code ELECTED c epoch t}: its listener was told {@code elected} at {@code t};</li>
 *   <li>{@code REVOKED c epoch cause t lastTrue}: told {@code revoked}, and when the sampler last saw the term
 *       current (-1 if never);</li>
 *   <li>{@code QUIT c epoch t}: the worker called {@code stepDown} or {@code close} on it at {@code t}, leading;</li>
 *   <li>{@code NOTLEADER c epoch lastTrue firstFalse}: the sampler (every 2 ms) last saw the term as the
 *       candidate's current one ({@code term()}, which is {@code isLeader()} with the epoch) at {@code lastTrue},
 *       -1 if never, and first saw it not so at {@code firstFalse}, before the revoked call;</li>
 *   <li>{@code STILL c epoch t}: still leading at the end of the workload (then closed);</li>
 *   <li>{@code STALL w from to}: the sampler did not run for more than 100 ms (a SIGSTOP, or the load);</li>
 *   <li>{@code CLOSED w start end}: the client was closed mid-flight ({@code CLOSE}) and another opened.</li>
 * </ul>
 */
final class LeaderWorker {
    /** A gap of the sampler longer than this is recorded as a stall. */
    static final long STALL_NANOS = 100_000_000L;
    /** How long past its seconds a worker that is not told {@code STOP} goes on: longer than any fault lasts. */
    static final Duration OVERRUN = Duration.ofSeconds(90);

    /** One candidate, with what its listener and the sampler saw. */
    private static final class Watched implements LeadershipListener {
        final String id;
        final PrintWriter history;
        volatile Leadership candidacy;
        /** The term the listener was told of and not yet told revoked, or null. */
        volatile Term believed;
        /** The last instant the sampler saw {@link #believed} as the candidate's current term; -1 if not yet. */
        volatile long lastTrue = -1;
        /** Whether the sampler saw {@link #believed} end already. */
        volatile boolean ended;

        Watched(String id, PrintWriter history) {
            this.id = id;
            this.history = history;
        }

        @Override
        public void elected(Term term) {
            long t = System.nanoTime();
            lastTrue = -1;
            ended = false;
            believed = term;
            record(history, "ELECTED %s %d %d", id, term.epoch(), t);
        }

        @Override
        public void revoked(Term term, Leadership.Revocation why) {
            long t = System.nanoTime();
            long seen = believed == term ? lastTrue : -1;
            believed = null;
            record(history, "REVOKED %s %d %s %d %d", id, term.epoch(), why, t, seen);
        }

        /** One sample of the believed term against the candidate's own view. */
        void sample() {
            Term term = believed;
            Leadership c = candidacy;
            if (term == null || ended || c == null) {
                return;
            }
            long t0 = System.nanoTime();
            boolean leads = c.term().map(now -> now.epoch() == term.epoch()).orElse(false);
            long t1 = System.nanoTime();
            if (believed != term) {
                return;
            }
            if (leads) {
                lastTrue = t1;
            } else {
                ended = true;
                record(history, "NOTLEADER %s %d %d %d", id, term.epoch(), lastTrue, t0);
            }
        }
    }

    private LeaderWorker() {
    }

    static void main(String[] args) throws Exception {
        String spec = args[0];
        String storeUri = args[1];
        Path historyFile = Path.of(args[2]);
        String worker = args[3];
        int candidates = Integer.parseInt(args[4]);
        long seconds = Long.parseLong(args[5]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[6]));
        String election = args[8].split(",")[0];
        boolean naive = args[9].equals("naive-leader");
        Random random = new Random(Long.parseLong(args[10]) * 31 + 7);
        long pid = ProcessHandle.current().pid();
        AtomicReference<LockClient> client = new AtomicReference<>(connect(spec, lease));
        try (FencedStore store = new FencedStore(storeUri);
             PrintWriter history = new PrintWriter(Files.newBufferedWriter(historyFile, StandardCharsets.UTF_8))) {
            System.out.println("READY");
            System.out.flush();
            BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            if (!"GO".equals(commands.readLine())) {
                throw new IllegalStateException("the run ended before it started");
            }
            List<Watched> watched = new ArrayList<>();
            int[] generation = new int[candidates];
            Object lock = new Object();
            AtomicBoolean stop = new AtomicBoolean();
            for (int i = 0; i < candidates; i++) {
                Watched w = new Watched(worker + "." + i + "." + generation[i]++, history);
                watched.add(w);
                join(w, client.get(), election, lease, naive, history);
            }
            Thread listener = new Thread(() -> {
                try {
                    String line;
                    while ((line = commands.readLine()) != null) {
                        if (line.equals("CLOSE")) {
                            synchronized (lock) {
                                long c0 = System.nanoTime();
                                for (Watched w : watched) {
                                    quit(w, history, false);
                                }
                                client.get().close();
                                long c1 = System.nanoTime();
                                record(history, "CLOSED %s %d %d", worker, c0, c1);
                                client.set(connect(spec, lease));
                                for (int i = 0; i < watched.size(); i++) {
                                    Watched w = new Watched(worker + "." + i + "." + generation[i]++, history);
                                    watched.set(i, w);
                                    join(w, client.get(), election, lease, naive, history);
                                }
                            }
                        } else if (line.equals("STOP")) {
                            stop.set(true);
                        }
                    }
                } catch (IOException e) {
                    System.out.println("the run's commands could not be read, stopping: " + e);
                } finally {
                    // The end of the commands is the end of the run.
                    stop.set(true);
                }
            }, "run-commands");
            listener.setDaemon(true);
            listener.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(seconds).plus(OVERRUN).toNanos();
            long last = System.nanoTime();
            long nextMove = last;
            boolean marked = false;
            while (!stop.get() && System.nanoTime() - deadline < 0) {
                long now = System.nanoTime();
                if (now - last > STALL_NANOS) {
                    record(history, "STALL %s %d %d", worker, last, now);
                }
                last = now;
                boolean leads = false;
                synchronized (lock) {
                    for (Watched w : watched) {
                        w.sample();
                        leads |= w.believed != null;
                    }
                    // Every 50 ms, at random: a leader steps down (about every 1.5 s of a term), a candidate is
                    // closed and another created in its place (about every 10 s per candidate).
                    if (now - nextMove > 0) {
                        nextMove = now + 50_000_000L;
                        for (int i = 0; i < watched.size(); i++) {
                            Watched w = watched.get(i);
                            if (w.believed != null && random.nextInt(30) == 0) {
                                quit(w, history, true);
                            } else if (random.nextInt(200) == 0) {
                                quit(w, history, false);
                                Watched fresh = new Watched(worker + "." + i + "." + generation[i]++, history);
                                watched.set(i, fresh);
                                join(fresh, client.get(), election, lease, naive, history);
                            }
                        }
                    }
                }
                // The run's stalls and partitions strike the worker that notes a lock held: the leader's.
                if (leads != marked) {
                    try {
                        if (leads) {
                            store.markHolder(election, pid);
                        } else {
                            store.unmarkHolder(election, pid);
                        }
                        marked = leads;
                    } catch (RuntimeException e) {
                        // The store is only a hint for the run's choice of victim.
                    }
                }
                pause(2);
            }
            synchronized (lock) {
                long end = System.nanoTime();
                for (Watched w : watched) {
                    Term term = w.believed;
                    if (term != null) {
                        record(history, "STILL %s %d %d", w.id, term.epoch(), end);
                    }
                }
                for (Watched w : watched) {
                    quit(w, history, false);
                }
            }
            // The closes' revoked calls come on the client's callback threads: a bounded moment for them.
            long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (watched.stream().anyMatch(w -> w.believed != null) && System.nanoTime() - until < 0) {
                pause(5);
            }
            client.get().close();
        }
    }

    private static void join(Watched w, LockClient client, String election, Duration lease, boolean naive,
                             PrintWriter history) {
        record(history, "JOIN %s %d", w.id, System.nanoTime());
        w.candidacy = naive ? new NaiveLeader(client.lock(election), lease, w) : client.leadership(election, w);
    }

    /** Steps down, or closes; a leader's QUIT is recorded before the call, when its belief ends. */
    private static void quit(Watched w, PrintWriter history, boolean stepDown) {
        Term term = w.believed;
        if (term != null) {
            record(history, "QUIT %s %d %d", w.id, term.epoch(), System.nanoTime());
        }
        try {
            if (stepDown) {
                w.candidacy.stepDown();
            } else {
                w.candidacy.close();
            }
        } catch (RuntimeException e) {
            // A release that fails: the lease expires; the revoked call comes either way.
        }
    }

    private static LockClient connect(String spec, Duration lease) {
        for (int attempt = 1; ; attempt++) {
            try {
                return LockClient.create(LockTarget.configure(spec).defaultLease(lease)
                        .commandTimeout(Duration.ofMillis(500)).build());
            } catch (RuntimeException e) {
                if (attempt == 5) {
                    throw e;
                }
                System.out.println("connect attempt " + attempt + " failed, trying again: " + e);
            }
        }
    }

    static void record(PrintWriter history, String format, Object... args) {
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

    /**
     * The mutant: a candidate on the election's lock, with a lease of one lease that is never renewed, which leads
     * from its acquire until it steps down or is closed, and never hears of its lease's loss (no onLost, no
     * {@code isHeld()}): a leader that keeps leading when its lease is lost.
     */
    static final class NaiveLeader implements Leadership {
        private final DistributedLock lock;
        private final Duration lease;
        private final LeadershipListener listener;
        private final Thread thread;
        private volatile boolean closed;
        private volatile Term term;
        private volatile Lease held;

        NaiveLeader(DistributedLock lock, Duration lease, LeadershipListener listener) {
            this.lock = lock;
            this.lease = lease;
            this.listener = listener;
            this.thread = new Thread(this::campaign, "naive-leader");
            thread.setDaemon(true);
            thread.start();
        }

        private void campaign() {
            while (!closed) {
                if (term != null) {
                    pause(5);
                    continue;
                }
                try {
                    Optional<Lease> got = lock.tryAcquire(Duration.ofSeconds(1), lease);
                    if (got.isPresent()) {
                        if (closed) {
                            got.get().release();
                            return;
                        }
                        held = got.get();
                        term = new Term(lock.name(), got.get().fencingToken());
                        listener.elected(term);
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    pause(50);
                }
            }
        }

        @Override
        public String name() {
            return lock.name();
        }

        @Override
        public boolean isLeader() {
            return term != null;
        }

        @Override
        public Optional<Term> term() {
            return Optional.ofNullable(term);
        }

        @Override
        public Optional<Term> awaitLeadership(Duration timeout) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Term> leadershipAsync() {
            throw new UnsupportedOperationException();
        }

        @Override
        public synchronized boolean stepDown() {
            return end(Revocation.STEPPED_DOWN);
        }

        @Override
        public synchronized void close() {
            closed = true;
            end(Revocation.CLOSED);
        }

        private boolean end(Revocation why) {
            Term ended = term;
            if (ended == null) {
                return false;
            }
            try {
                held.release();
            } catch (RuntimeException e) {
                // Lost long ago, as like as not: this leader never asked.
            }
            term = null;
            listener.revoked(ended, why);
            return true;
        }
    }
}
