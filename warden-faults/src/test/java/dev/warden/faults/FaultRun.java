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
    }

    /** How many processes a client stall stops and lets go on before it keeps one stopped anyway. */
    private static final int STALL_ATTEMPTS = 20;

    private final Plan plan;
    private final Random random = new Random(42);
    /** How many faults of each kind were injected, as "fault KIND" counts in the report. */
    private final Map<String, Integer> injected = new java.util.TreeMap<>();

    FaultRun(Plan plan) {
        this.plan = plan;
    }

    Report run(Path dir) throws Exception {
        try (LockTarget lockServer = LockTarget.start(plan.topology()); RedisServer storeServer = RedisServer.start()) {
            List<Process> workers = new ArrayList<>();
            List<Path> files = new ArrayList<>();
            for (int w = 0; w < plan.workers(); w++) {
                Path file = dir.resolve(plan.name() + "-worker-" + w + ".history");
                files.add(file);
                workers.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp", System.getProperty("java.class.path"), FaultWorker.class.getName(),
                        lockServer.spec(), storeServer.uri(), file.toString(), "w" + w,
                        Integer.toString(plan.threads()), Integer.toString(plan.seconds()),
                        Long.toString(plan.lease().toMillis()), Integer.toString(plan.holdMaxMs()),
                        String.join(",", plan.names()), plan.lockKind(), Integer.toString(w))
                        .redirectErrorStream(true).start());
            }
            awaitReady(workers, dir);
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(plan.seconds());
            List<long[]> windows;
            int[] connections = new int[2];
            try (FencedStore store = new FencedStore(storeServer.uri())) {
                windows = inject(lockServer, workers, store, start, end, connections);
            }
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
            // to exit, and a fault may end after it (a failover waits out Sentinel's cooldown first).
            List<String> found;
            Map<String, Integer> checked;
            if (plan.lockKind().equals("warden-family")) {
                FamilyChecker checker = new FamilyChecker();
                checker.check(history, logs, plan.losesData(), windows, bound, end);
                found = checker.violations();
                checked = checker.counts();
            } else {
                Checker checker = new Checker();
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
                    List<String> early = new ArrayList<>();
                    while ((line = lines.readLine()) != null) {
                        if (line.equals("READY")) {
                            signal.complete(null);
                        } else if (!signal.isDone() && early.size() < 20) {
                            early.add(line);
                        }
                        out.write(line);
                        out.newLine();
                    }
                    signal.completeExceptionally(new IllegalStateException("worker exited before it was ready: "
                            + early));
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
            worker.getOutputStream().write("GO\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            worker.getOutputStream().flush();
        }
    }

    /** Faults every 1.5-2.5 s after a 2 s warm-up, none in the last 4 s, so that recovery can be seen. */
    private List<long[]> inject(LockTarget lockServer, List<Process> workers, FencedStore store, long start, long end,
                                int[] connections) throws Exception {
        List<long[]> windows = new ArrayList<>();
        Thread sampler = new Thread(() -> {
            try {
                TimeUnit.NANOSECONDS.sleep((end - start) * 3 / 10);
                connections[0] = lockServer.connections();
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
        TimeUnit.SECONDS.sleep(2);
        // Every kind once per cycle, in a random order: a run of several faults always has each kind it names (a
        // free draw left a three-kind run of seven faults without one about once in seventeen runs).
        List<Fault> cycle = new ArrayList<>();
        while (System.nanoTime() - lastFault < 0) {
            if (cycle.isEmpty()) {
                cycle.addAll(plan.faults());
                Collections.shuffle(cycle, random);
            }
            Fault fault = cycle.remove(cycle.size() - 1);
            long from = System.nanoTime();
            apply(fault, lockServer, workers, store);
            windows.add(new long[] {from, System.nanoTime()});
            injected.merge("fault " + fault, 1, Integer::sum);
            TimeUnit.MILLISECONDS.sleep(1000 + random.nextInt(500));
        }
        TimeUnit.NANOSECONDS.sleep(Math.max(0, end - System.nanoTime()));
        sampler.join();
        return windows;
    }

    private void apply(Fault fault, LockTarget lockServer, List<Process> workers, FencedStore store)
            throws Exception {
        long lease = plan.lease().toMillis();
        if (fault == Fault.CLIENT_STALL) {
            // Stop a process inside a critical section: one that holds a lock, kept stopped only if, once stopped,
            // it still holds one (it cannot release while stopped); otherwise it goes on at once and another try
            // follows, up to a bound.
            for (int attempt = 1; ; attempt++) {
                List<Process> holding = workers.stream().filter(p -> store.holds(p.pid())).toList();
                List<Process> candidates = holding.isEmpty() ? workers : holding;
                Process victim = candidates.get(random.nextInt(candidates.size()));
                signal("STOP", victim.pid());
                if (store.holds(victim.pid()) || attempt == STALL_ATTEMPTS) {
                    TimeUnit.MILLISECONDS.sleep(lease * 2);
                    signal("CONT", victim.pid());
                    return;
                }
                signal("CONT", victim.pid());
            }
        }
        lockServer.apply(fault, lease, random);
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
        int perWorker = plan.topology().equals("quorum") ? 6 : 2;
        if (connections[0] > 0 && (connections[1] > connections[0] + 1
                || connections[1] > plan.workers() * perWorker + 4)) {
            problems.add("leak: lock-server connections went from " + connections[0] + " to " + connections[1]);
        }
        return problems;
    }

    private static void signal(String name, long pid) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start().waitFor();
    }
}
