package dev.warden.faults;

import dev.warden.LockClient;
import dev.warden.LockInfo;
import dev.warden.redisserver.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/** One run: workers in separate JVMs against a lock server, faults injected on a schedule, then the checks. */
final class FaultRun {
    /** What to run. */
    record Plan(String name, List<Fault> faults, int seconds, int workers, int threads, Duration lease,
                int holdMaxMs, List<String> names, String lockKind, String topology) {
        /**
         * Whether granted locks may vanish: a single server restarted empty. A quorum keeps its guarantee through
         * a restart of one server (kept down for longer than a lease), and acknowledged grants survive a failover.
         */
        boolean losesData() {
            return faults.contains(Fault.SERVER_RESTART) && !topology.equals("quorum");
        }

        /**
         * The kind of lock worker {@code w} runs: a surface's runs ({@link SurfaceLocks#KINDS}) mix in one reference
         * worker (worker 0) of plain renewed leases, whose full intervals the surfaces' claims are checked against.
         */
        String kindOf(int w) {
            if (w == 0 && referenced()) {
                return "warden-renewed";
            }
            // "registry": the registry of renewed leases and that of fixed leases side by side, in one run.
            if (lockKind.equals("registry")) {
                return w % 2 == 1 ? "registry-renewed" : "registry-fixed";
            }
            return lockKind;
        }

        /** Whether the workers are candidates of an election ({@link LeaderWorker}), not lock holders. */
        boolean leadership() {
            return lockKind.endsWith("-leader");
        }

        boolean referenced() {
            return SurfaceLocks.KINDS.contains(lockKind);
        }

        /** Whether an administrator forces locks free in this run: it has a client of its own. */
        boolean forces() {
            return faults.contains(Fault.FORCE_RELEASE) || faults.contains(Fault.FORCE_HALF);
        }
    }

    /** What happened. */
    record Report(Plan plan, int operations, int acquisitions, int faults, Map<String, Integer> counts,
                  List<String> violations) {
        String summary() {
            return String.format("faults run=%s topology=%s lock=%s operations=%d acquisitions=%d faults=%d lost-leases=%d "
                            + "stale-writes-rejected=%d violations=%d", plan.name(), plan.topology(), plan.lockKind(), operations,
                    acquisitions, faults, counts.getOrDefault("lost leases", 0),
                    counts.getOrDefault("stale writes rejected", 0), violations.size())
                    + counts.entrySet().stream().filter(e -> e.getKey().startsWith("fault "))
                    .map(e -> " " + e.getKey().substring(6).toLowerCase() + "=" + e.getValue())
                    .collect(java.util.stream.Collectors.joining());
        }

        /** The figures of a leadership run: elections, revocations by cause, the leaderless gap after faults. */
        String leadership() {
            return String.format("elections=%d believed=%d revoked-lost=%d revoked-stepped-down=%d revoked-closed=%d "
                            + "spanning-loss=%d stall-ended=%d worker-stalls=%d ms-to-leader-after-faults=%d "
                            + "longest-leaderless-ms-after-faults=%d", counts.getOrDefault("elections", 0),
                    counts.getOrDefault("terms believed", 0), counts.getOrDefault("revoked LOST", 0),
                    counts.getOrDefault("revoked STEPPED_DOWN", 0), counts.getOrDefault("revoked CLOSED", 0),
                    counts.getOrDefault("terms spanning a loss of data", 0),
                    counts.getOrDefault("beliefs ended in a stall of their worker", 0),
                    counts.getOrDefault("stalls of a worker", 0),
                    counts.getOrDefault("ms to a leader after the faults", -1),
                    counts.getOrDefault("longest leaderless ms after the faults", -1));
        }

        /** The figures of a surface's round: claims, losses told, clients closed, data losses, halves forced. */
        String figures() {
            return String.format("claims=%d reentrant-told-lost=%d holders-forced=%d closes=%d data-losses=%d "
                            + "spanning-holders=%d", counts.getOrDefault("claims", 0),
                    counts.getOrDefault("reentrant acquires told lost", 0),
                    counts.getOrDefault("holders removed by forceRelease", 0),
                    counts.getOrDefault("clients closed mid-flight", 0), counts.getOrDefault("losses of data", 0),
                    counts.getOrDefault("holders spanning a loss of data", 0))
                    + counts.entrySet().stream().filter(e -> e.getKey().startsWith("forced alone "))
                    .map(e -> " forced-" + e.getKey().substring(13) + "=" + e.getValue())
                    .collect(java.util.stream.Collectors.joining());
        }
    }

    /**
     * How long a leadership run's workload goes on after its last fault ended, at least: the checker's bound for a
     * leader again (a lease, the candidate's retry delay, 1 s of slack) and a second more.
     */
    static final Duration LEADERSHIP_TAIL = Duration.ofSeconds(4);

    /** How many workers a client stall or partition strikes and spares before it keeps one struck anyway. */
    private static final int STALL_ATTEMPTS = 20;

    private final Plan plan;
    /**
     * Which round of the plan this is (0 for the first), or -1 for a run that is not one of rounds: a round's first
     * cycle of faults draws the kinds in the order the plan names them, starting at the round's index (round 0 with
     * the first named), so that rounds between them begin with every kind; later cycles, and every cycle of a run
     * not in rounds, are shuffled.
     */
    private final int round;
    private final Random random;
    /** How many faults of each kind were injected, as "fault KIND" counts in the report. */
    private final Map<String, Integer> injected = new java.util.TreeMap<>();
    /** When the workers stop (System.nanoTime): a fault that waits for a holder gives up 2 s before. */
    private long workloadEnd;

    FaultRun(Plan plan) {
        this(plan, -1);
    }

    /** @param round the round of the plan, from 0 ({@link #round}), or -1 */
    FaultRun(Plan plan, int round) {
        this.plan = plan;
        this.round = round;
        this.random = new Random(42 + Math.max(0, round));
    }

    Report run(Path dir) throws Exception {
        try (LockTarget lockServer = LockTarget.start(plan.topology(), plan.names());
             RedisServer storeServer = RedisServer.start();
             Network network = new Network(lockServer, plan.workers(),
                     plan.faults().stream().anyMatch(Fault::network))) {
            List<Process> workers = new ArrayList<>();
            List<Path> files = new ArrayList<>();
            for (int w = 0; w < plan.workers(); w++) {
                Path file = dir.resolve(plan.name() + "-worker-" + w + ".history");
                files.add(file);
                workers.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp", System.getProperty("java.class.path"), FaultWorker.class.getName(),
                        network.spec(w), storeServer.uri(), file.toString(), "w" + w,
                        Integer.toString(plan.threads()), Integer.toString(plan.seconds()),
                        Long.toString(plan.lease().toMillis()), Integer.toString(plan.holdMaxMs()),
                        String.join(",", plan.names()), plan.kindOf(w), Integer.toString(w))
                        .redirectErrorStream(true).start());
            }
            // The administrator's client connects before the workload starts: its first connection can take seconds
            // on a loaded machine, which the fault schedule must not lose.
            // Only the runs that force locks free have one, so that the other runs' connection counts are as before.
            Path adminFile = dir.resolve(plan.name() + "-admin.history");
            FencedStore adminStore = new FencedStore(storeServer.uri());
            Admin admin = plan.forces() ? new Admin(lockServer.spec(), plan.lease(), adminStore, adminFile) : null;
            awaitReady(workers, dir);
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(plan.seconds());
            List<Checker.Window> windows;
            int[] connections = new int[2];
            try (FencedStore store = adminStore; Admin closing = admin) {
                windows = inject(new Targets(lockServer, network, workers, store, admin), start, end, connections);
            }
            if (admin != null) {
                files.add(adminFile);
            }
            long ended = plan.leadership() ? stopLeadership(workers, windows, end) : end;
            List<String> problems = new ArrayList<>();
            for (int w = 0; w < workers.size(); w++) {
                Process worker = workers.get(w);
                if (!worker.waitFor(plan.seconds() + 60L, TimeUnit.SECONDS)) {
                    worker.destroyForcibly();
                    problems.add("liveness: worker " + w + " did not finish: a client thread was left blocked");
                } else if (worker.exitValue() != 0) {
                    problems.add("worker " + w + " failed: " + Files.readString(
                            dir.resolve(plan.name() + "-worker-" + w + ".log")).lines().limit(5).toList());
                }
                files.removeIf(file -> !Files.exists(file));
            }
            History history = History.read(files);
            Map<String, List<String>> logs = new HashMap<>();
            try (FencedStore store = new FencedStore(storeServer.uri())) {
                for (String name : plan.names()) {
                    logs.put(name, store.log(name));
                }
            }
            long bound = plan.lease().toNanos() * 3 + TimeUnit.SECONDS.toNanos(5);
            // Liveness is judged up to the end of the workload: no worker acquires after it, however long it takes
            // to exit, and a fault may end after it (a failover waits out Sentinel's cooldown first). A leadership
            // run's workload goes on until some time after its last fault (stopLeadership), to see a leader again.
            List<String> found;
            Map<String, Integer> checked;
            if (plan.leadership()) {
                LeadershipChecker checker = new LeadershipChecker(plan.lease());
                checker.check(history, plan.losesData(), windows, start, ended);
                found = checker.violations();
                checked = checker.counts();
            } else if (plan.lockKind().equals("warden-family")) {
                FamilyChecker checker = new FamilyChecker().lease(plan.lease());
                checker.check(history, logs, plan.losesData(), windows, bound, end);
                found = checker.violations();
                checked = checker.counts();
            } else {
                Checker checker = new Checker().lease(plan.lease());
                checker.check(history, logs, plan.losesData(), windows, bound, end);
                found = checker.violations();
                checked = checker.counts();
            }
            List<String> violations = new ArrayList<>(problems);
            violations.addAll(found);
            violations.addAll(endState(lockServer, connections, history));
            int operations = history.acquisitions.size() + history.attempts.size();
            Map<String, Integer> counts = new HashMap<>(checked);
            counts.putAll(injected);
            return new Report(plan, operations, history.acquisitions.size(), windows.size(), counts,
                    violations);
        }
    }

    /** Waits until every worker has connected (its READY line), then tells them all GO. */
    private void awaitReady(List<Process> workers, Path dir) throws Exception {
        List<java.util.concurrent.CompletableFuture<Void>> ready = new ArrayList<>();
        for (int w = 0; w < workers.size(); w++) {
            Process worker = workers.get(w);
            Path log = dir.resolve(plan.name() + "-worker-" + w + ".log");
            java.util.concurrent.CompletableFuture<Void> signal = new java.util.concurrent.CompletableFuture<>();
            ready.add(signal);
            Thread copier = new Thread(() -> {
                try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(worker.getInputStream()));
                     var out = Files.newBufferedWriter(log)) {
                    String line;
                    List<String> first = new ArrayList<>();
                    while ((line = lines.readLine()) != null) {
                        if (line.equals("READY")) {
                            signal.complete(null);
                        }
                        if (first.size() < 5) {
                            first.add(line);
                        }
                        out.write(line);
                        out.newLine();
                    }
                    signal.completeExceptionally(new IllegalStateException("worker exited before it was ready: "
                            + first));
                } catch (IOException e) {
                    signal.completeExceptionally(e);
                }
            }, "worker-output");
            copier.setDaemon(true);
            copier.start();
        }
        java.util.concurrent.CompletableFuture.allOf(ready.toArray(java.util.concurrent.CompletableFuture[]::new))
                .get(60, TimeUnit.SECONDS);
        for (Process worker : workers) {
            tell(worker, "GO");
        }
    }

    /**
     * Ends a leadership run's workload ({@code STOP} to every worker, {@link LeaderWorker}) at its end, or
     * {@link #LEADERSHIP_TAIL} after the last fault ended if that is later: a failover can outlast the workload's
     * seconds (Sentinel's cooldown, a cluster's node timeout, a replica's resync), and the checker must see a leader
     * again after the faults within its bound, which needs a workload that goes on past them.
     *
     * @return when the workload ended, for the checker
     */
    private static long stopLeadership(List<Process> workers, List<Checker.Window> windows, long end)
            throws IOException, InterruptedException {
        long stop = end;
        for (Checker.Window window : windows) {
            long after = window.to() + LEADERSHIP_TAIL.toNanos();
            if (after - stop > 0) {
                stop = after;
            }
        }
        if (stop != end) {
            System.out.printf("leadership: the workload goes on %d ms past its seconds, to %d ms after the last "
                    + "fault%n", TimeUnit.NANOSECONDS.toMillis(stop - end), LEADERSHIP_TAIL.toMillis());
        }
        TimeUnit.NANOSECONDS.sleep(Math.max(0, stop - System.nanoTime()));
        for (Process worker : workers) {
            tell(worker, "STOP");
        }
        return stop;
    }

    /** Sends a worker a line on its standard input: GO, or a command ({@link FaultWorker}). */
    private static void tell(Process worker, String line) throws IOException {
        worker.getOutputStream().write((line + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        worker.getOutputStream().flush();
    }

    /** What faults hit: the lock servers, the network, the worker processes; the store tells who holds a lock. */
    private record Targets(LockTarget lockServer, Network network, List<Process> workers, FencedStore store,
                           Admin admin) {
    }

    /**
     * The lock server's connections the workers keep, for {@link #endState}'s leak check: the most seen from
     * {@code from} to {@code to} (System.nanoTime), one sample every 200 ms. One sample alone can fall into a fault
     * (a restart, killed connections) and see fewer than the workers keep once reconnected: a CI run saw 5, then 7
     * at the end, and called it a leak.
     *
     * @return the most connections seen, or -1 if the server answered no sample (paused or restarting throughout)
     */
    private static int baseline(LockTarget lockServer, long from, long to) throws InterruptedException {
        TimeUnit.NANOSECONDS.sleep(Math.max(0, from - System.nanoTime()));
        int most = -1;
        while (System.nanoTime() - to < 0) {
            try {
                most = Math.max(most, lockServer.connections());
            } catch (RuntimeException e) {
                // A paused or restarting server answers no sample: the next one counts.
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        return most;
    }

    /** Faults every 1.5-2.5 s after a 2 s warm-up, none in the last 4 s, so that recovery can be seen. */
    private List<Checker.Window> inject(Targets targets, long start, long end, int[] connections) throws Exception {
        LockTarget lockServer = targets.lockServer();
        List<Checker.Window> windows = new ArrayList<>();
        Thread sampler = new Thread(() -> {
            try {
                connections[0] = baseline(lockServer, start + (end - start) / 5, start + (end - start) * 9 / 20);
                TimeUnit.NANOSECONDS.sleep(Math.max(0, end - System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(300)));
                connections[1] = lockServer.connections();
            } catch (InterruptedException | RuntimeException e) {
                connections[0] = -1;
            }
        }, "connection-sampler");
        sampler.start();
        if (plan.faults().isEmpty()) {
            TimeUnit.NANOSECONDS.sleep(Math.max(0, end - System.nanoTime()));
            sampler.join();
            return windows;
        }
        long lastFault = end - TimeUnit.SECONDS.toNanos(4);
        workloadEnd = end;
        TimeUnit.SECONDS.sleep(2);
        // Every kind once per cycle, in a random order: a run of several faults always has each kind it names (a
        // free draw left a three-kind run of seven faults without one about once in seventeen runs).
        List<Fault> cycle = new ArrayList<>();
        boolean first = round >= 0;
        while (System.nanoTime() - lastFault < 0) {
            if (cycle.isEmpty()) {
                cycle.addAll(plan.faults());
                if (first) {
                    // Drawn from the end: the round's kind first, then the next named, and so on.
                    Collections.rotate(cycle, -round);
                    Collections.reverse(cycle);
                    first = false;
                } else {
                    Collections.shuffle(cycle, random);
                }
            }
            Fault fault = cycle.remove(cycle.size() - 1);
            long from = System.nanoTime();
            List<String> victims = apply(fault, targets);
            if (victims != null) {
                windows.add(new Checker.Window(from, System.nanoTime(), victims,
                        fault == Fault.SERVER_RESTART && plan.losesData(), fault.name()));
                injected.merge("fault " + fault, 1, Integer::sum);
            }
            TimeUnit.MILLISECONDS.sleep(1000 + random.nextInt(500));
        }
        TimeUnit.NANOSECONDS.sleep(Math.max(0, end - System.nanoTime()));
        sampler.join();
        return windows;
    }

    /**
     * Injects a fault and returns when it is over.
     *
     * @return the workers it struck that must acquire again after it ("w0"; none for a fault of the servers), or
     *         null if it could not be injected now
     */
    private List<String> apply(Fault fault, Targets targets) throws Exception {
        long lease = plan.lease().toMillis();
        List<Process> workers = targets.workers();
        return switch (fault) {
            case CLIENT_STALL -> {
                int victim = strikeHolder(targets, w -> signal("STOP", workers.get(w).pid()),
                        w -> signal("CONT", workers.get(w).pid()));
                TimeUnit.MILLISECONDS.sleep(lease * 2);
                signal("CONT", workers.get(victim).pid());
                yield List.of();
            }
            case CLIENT_PARTITION -> partitionHolder(targets, lease);
            case FORCE_RELEASE -> forceRelease(targets, null);
            case FORCE_HALF -> forceRelease(targets,
                    List.of("r", "w", "p").get(injected.getOrDefault("fault " + Fault.FORCE_HALF, 0) % 3));
            case CLIENT_CLOSE -> {
                int victim = holder(targets, plan.referenced() ? 1 : 0, null);
                tell(workers.get(victim), "CLOSE");
                // The worker closes and reopens on its own; the history has when (CLOSED). Give it a moment.
                TimeUnit.MILLISECONDS.sleep(lease / 2);
                if (targets.admin() != null) {
                    // A permit the closed client held shows free only when others hold every permit at once, which
                    // the workers alone may not want within the close rule's bound (a lease and a second): a run
                    // saw them take slots#p3 16 times without ever holding all 3. The administrator takes them all.
                    List<String> semaphores = plan.names().stream().distinct()
                            .filter(name -> name.indexOf('#') >= 0 && FamilyLocks.semaphore(name)).toList();
                    if (!semaphores.isEmpty()) {
                        targets.admin().fill(semaphores, Duration.ofMillis(lease + 500));
                    }
                }
                yield List.of("w" + victim);
            }
            case PUBSUB_PARTITION -> partitionPubSub(targets.network(), lease);
            case NETWORK_LATENCY -> latencySpike(targets, lease);
            default -> {
                targets.lockServer().apply(fault, lease, random);
                yield List.of();
            }
        };
    }

    /**
     * Cuts off a worker that holds a lock for two leases. The holder goes on working under its lock through the
     * partition and half a lease beyond, as a long job would: its lease runs out meanwhile, unrenewed. Every other
     * partition ends with a reset of the worker's connections instead of a heal.
     *
     * <p>The cut comes only once the worker notes a hold stretched ({@code STRETCH-HELD}): a hold that was past its
     * stretch (reentering, releasing) when the cut came would end in an error rather than a loss, and a run whose
     * every cut came so would lose no lease, though its holders were struck.
     *
     * @return the worker cut off, or null if no worker's hold could be stretched now (a leadership run cuts off
     *         its leader, which has no hold to stretch)
     */
    private List<String> partitionHolder(Targets targets, long lease) throws Exception {
        Network network = targets.network();
        int victim;
        if (plan.leadership()) {
            // A candidate has no hold to stretch: the leader is cut off as it leads, kept cut off if it still does.
            victim = strikeHolder(targets, network::cut, w -> network.heal(w, false));
        } else {
            victim = stretchedHolder(targets, lease * 5 / 2);
            if (victim < 0) {
                System.out.println("client-partition: no worker's hold could be stretched");
                return null;
            }
            network.cut(victim);
        }
        TimeUnit.MILLISECONDS.sleep(lease * 2);
        boolean reset = injected.getOrDefault("fault " + Fault.CLIENT_PARTITION, 0) % 2 == 1;
        int resets = network.heal(victim, reset);
        System.out.printf("client-partition: w%d cut off for %d ms, then %s%n", victim, lease * 2,
                reset ? resets + " connections reset" : "healed");
        return List.of("w" + victim);
    }

    /**
     * Stretches the holds in progress of a worker that holds a lock, for {@code millis}, until one notes a hold
     * stretched; a worker that notes none within 300 ms is let go, and another tried, up to a bound: not past the
     * time the cut and its aftermath ({@code millis}) still fit before the workload's end, nor longer than 4 s.
     *
     * @return the worker whose hold is stretched, or -1
     */
    private int stretchedHolder(Targets targets, long millis) throws Exception {
        List<Process> workers = targets.workers();
        long giveUp = searchEnd(millis);
        for (int attempt = 1; attempt <= STALL_ATTEMPTS && System.nanoTime() - giveUp < 0; attempt++) {
            int victim = holder(targets);
            Process worker = workers.get(victim);
            tell(worker, "STRETCH-HELD " + millis);
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            if (awaitStretched(targets, worker, null, until) != null) {
                return victim;
            }
            tell(worker, "STRETCH 0");
        }
        return -1;
    }

    /**
     * When a search for a hold to stretch gives up (System.nanoTime): after 4 s, or once what follows it ({@code
     * afterMillis}) would no longer fit 2 s before the workload's end.
     */
    private long searchEnd(long afterMillis) {
        return Math.min(workloadEnd - TimeUnit.SECONDS.toNanos(2) - TimeUnit.MILLISECONDS.toNanos(afterMillis),
                System.nanoTime() + TimeUnit.SECONDS.toNanos(4));
    }

    /**
     * A hold in progress reaches its stretch within its short hold; one past it (reentering, releasing) is not
     * stretched.
     *
     * @param role  null for any name; else the role the stretched name must have ({@link FencedStore#stretchedName})
     * @param until the System.nanoTime by which the worker must note a hold stretched
     * @return the name of a hold the worker noted stretched by then, or null
     */
    private static String awaitStretched(Targets targets, Process worker, String role, long until)
            throws InterruptedException {
        String name = targets.store().stretchedName(worker.pid(), role);
        while (name == null && System.nanoTime() - until < 0) {
            TimeUnit.MILLISECONDS.sleep(5);
            name = targets.store().stretchedName(worker.pid(), role);
        }
        return name;
    }

    /** Cuts off one worker's pub/sub connection alone for two leases; null if no worker has one yet. */
    private List<String> partitionPubSub(Network network, long lease) throws InterruptedException {
        int victim = network.cutPubSub(random);
        if (victim < 0) {
            return null;
        }
        TimeUnit.MILLISECONDS.sleep(lease * 2);
        network.heal(victim, false);
        System.out.printf("pubsub-partition: w%d's pub/sub connection cut off for %d ms, then healed%n", victim,
                lease * 2);
        return List.of("w" + victim);
    }

    /**
     * Delays requests and replies 0.3-0.8 s each way for 1.5 leases: in turn for a worker that holds a lock (which
     * goes on working under it through the spike and half a lease beyond), and for every worker.
     */
    private List<String> latencySpike(Targets targets, long lease) throws IOException, InterruptedException {
        List<Process> workers = targets.workers();
        List<Integer> slowed = new ArrayList<>();
        if (injected.getOrDefault("fault " + Fault.NETWORK_LATENCY, 0) % 2 == 0) {
            slowed.add(holder(targets));
            tell(workers.get(slowed.get(0)), "STRETCH " + lease * 2);
        } else {
            for (int w = 0; w < workers.size(); w++) {
                slowed.add(w);
            }
        }
        Duration requests = Duration.ofMillis(300 + random.nextInt(501));
        Duration replies = Duration.ofMillis(300 + random.nextInt(501));
        slowed.forEach(w -> targets.network().latency(w, requests, replies));
        TimeUnit.MILLISECONDS.sleep(lease * 3 / 2);
        slowed.forEach(w -> targets.network().latency(w, Duration.ZERO, Duration.ZERO));
        System.out.printf("network-latency: %s delayed %d ms each request, %d ms each reply, for %d ms%n",
                slowed.stream().map(w -> "w" + w).toList(), requests.toMillis(), replies.toMillis(), lease * 3 / 2);
        return slowed.stream().map(w -> "w" + w).toList();
    }

    /**
     * An administrator's forceRelease of a lock a worker holds during a long job (its holds stretched), then a hold
     * of the administrator's own, during which the worker's holds end: null if no worker held a lock to force.
     *
     * @param half null to force the whole lock; in a family run, the kind of holder to force alone ("r" the
     *             readers, "w" the writer, "p" a semaphore's permits), whose hold is stretched
     */
    private List<String> forceRelease(Targets targets, String half) throws Exception {
        List<Process> workers = targets.workers();
        int first = plan.referenced() ? 1 : 0;
        // Not past 2 s before the workload's end, nor longer than 4 s: a search that finds no hold to stretch (a
        // loaded machine, a multi-lock's rare holds) gives the other faults their turn; the next cycle tries again.
        long giveUp = searchEnd(0);
        for (int attempt = 1; attempt <= 2 * STALL_ATTEMPTS && System.nanoTime() - giveUp < 0; attempt++) {
            int victim = holder(targets, first, half);
            Process worker = workers.get(victim);
            // Only the holds in progress are stretched (a long job), so that the administrator is not kept waiting
            // by holds taken after its forceRelease.
            tell(worker, "STRETCH-HELD 8000");
            try {
                // A hold in progress reaches its stretch within its 0-20 ms hold; one that was past it (reentering,
                // releasing) is not stretched, and another try follows.
                long until = Math.min(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300), giveUp);
                String name = awaitStretched(targets, worker, half, until);
                if (name != null) {
                    System.out.printf("force-release: '%s' forced%s from w%d (try %d)%n", name,
                            half == null ? "" : " alone", victim, attempt);
                    targets.admin().forceAndHold(name, half != null, () -> tell(worker, "STRETCH 0"));
                    if (half != null) {
                        injected.merge("forced alone " + half, 1, Integer::sum);
                    }
                    return List.of();
                }
            } finally {
                tell(worker, "STRETCH 0");
            }
        }
        System.out.println("force-release: no worker's hold could be stretched");
        return null;
    }

    /** Something done to or undone for worker {@code w}. */
    private interface Strike {
        void on(int w) throws Exception;
    }

    /**
     * Strikes a worker inside a critical section: one that holds a lock, kept struck only if, once struck, it still
     * holds one (stopped or cut off, it cannot release); otherwise {@code spare} lets it go at once and another try
     * follows, up to a bound.
     *
     * @return the worker struck
     */
    private int strikeHolder(Targets targets, Strike strike, Strike spare) throws Exception {
        for (int attempt = 1; ; attempt++) {
            int victim = holder(targets);
            strike.on(victim);
            if (targets.store().holds(targets.workers().get(victim).pid()) || attempt == STALL_ATTEMPTS) {
                return victim;
            }
            spare.on(victim);
        }
    }

    /** @return a random worker among those that note a lock held, or any if none does */
    private int holder(Targets targets) {
        return holder(targets, 0, null);
    }

    /**
     * @param role null for any name; else the role a family name held must have ("r", "w", "p")
     * @return a random worker from {@code first} on among those that note a lock held, or any if none does
     */
    private int holder(Targets targets, int first, String role) {
        List<Process> workers = targets.workers();
        List<Integer> holding = new ArrayList<>();
        for (int w = first; w < workers.size(); w++) {
            if (targets.store().holds(workers.get(w).pid(), role)) {
                holding.add(w);
            }
        }
        return holding.isEmpty() ? first + random.nextInt(workers.size() - first)
                : holding.get(random.nextInt(holding.size()));
    }

    /** After the run: no lock is left held, and neither threads nor connections grew. */
    private List<String> endState(LockTarget lockServer, int[] connections, History history) {
        List<String> problems = new ArrayList<>();
        try (LockClient client = LockClient.create(LockTarget.configure(lockServer.spec()).build())) {
            for (String name : plan.names()) {
                LockInfo info = plan.lockKind().equals("warden-family") ? FamilyLocks.inspect(client, name)
                        : client.lock(name).inspect();
                if (info.held() && info.remainingLease().compareTo(plan.lease()) > 0) {
                    problems.add("liveness: '" + name + "' is held beyond a lease after every client closed");
                }
            }
        }
        for (long[] threads : history.threads) {
            if (threads[1] - threads[0] > 8) {
                problems.add("leak: a worker grew from " + threads[0] + " to " + threads[1] + " threads during the run");
            }
        }
        // Lock connections per worker: commands, pub/sub, and the naive lock's own; plus this run's sampler.
        // A quorum client keeps a command and a pub/sub connection on every server.
        // A multi-lock run has a client per thread. The administrator's client, where there is one, adds two.
        int perWorker = plan.topology().equals("quorum") ? 6 : plan.lockKind().startsWith("multi")
                ? 2 * plan.threads() : 2;
        // A multi-lock run's clients per thread open their pub/sub connections when they first wait, lazily.
        // A surface run's workers, on a loaded machine, may first wait (and open their pub/sub connections) after 30 %
        // of a short run: the absolute bound still holds.
        int growth = plan.lockKind().startsWith("multi") ? plan.workers() * plan.threads()
                : plan.referenced() ? plan.workers() : 1;
        int admin = plan.forces() ? 2 : 0;
        if (connections[0] > 0 && (connections[1] > connections[0] + growth
                || connections[1] > plan.workers() * perWorker + 4 + admin)) {
            problems.add("leak: lock-server connections went from " + connections[0] + " to " + connections[1]);
        }
        return problems;
    }

    private static void signal(String name, long pid) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start().waitFor();
    }
}
