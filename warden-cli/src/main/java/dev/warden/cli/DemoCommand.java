package dev.warden.cli;

import dev.warden.redisserver.RedisServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code warden demo}: N clients, spread over several JVM processes, compete for P prizes kept in Redis. Each
 * client waits a bounded time for the lock, takes a prize if any is left, and releases. The run checks that no two
 * clients ever held the lock at once, that fencing tokens only grew, and that exactly the right prizes were taken.
 */
@Command(name = "demo", description = {"Run the prize contest: clients in several processes compete for prizes "
        + "under one lock, then check that the lock kept them apart. Starts an embedded Redis unless --redis or "
        + "WARDEN_REDIS is given."})
final class DemoCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    /** Not listed: the demo runs on one server; given, they say so. */
    @Option(names = "--cluster", hidden = true)
    boolean cluster;

    @Option(names = "--quorum", hidden = true)
    boolean quorum;

    @Option(names = "--clients", defaultValue = "100", description = "competing clients (default: ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--prizes", defaultValue = "10", description = "prizes in the pool (default: ${DEFAULT-VALUE})")
    int prizes;

    @Option(names = "--processes", defaultValue = "4",
            description = "JVM processes the clients are spread over (default: ${DEFAULT-VALUE})")
    int processes;

    @Option(names = "--wait", defaultValue = "60s", converter = Durations.class,
            description = "how long each client waits for the lock, at most 24h (default: ${DEFAULT-VALUE})")
    Duration wait;

    @Option(names = "--steady", defaultValue = "3s", converter = Durations.class,
            description = "after the contest, how long two threads per process hand a lock to each other as fast "
                    + "as they can, to measure the lock's own handoff rate and latency; 0 skips it; at most 24h "
                    + "(default: ${DEFAULT-VALUE})")
    Duration steady;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (clients < 1 || prizes < 0 || processes < 1) {
            throw new IllegalArgumentException("--clients and --processes must be at least 1 and --prizes at least 0: "
                    + clients + ", " + processes + ", " + prizes);
        }
        if (cluster || quorum) {
            throw new IllegalArgumentException("the demo runs on one Redis server: --cluster and --quorum do not "
                    + "apply");
        }
        Durations.check(spec, "--wait", wait, Duration.ZERO, Durations.MAX);
        Durations.check(spec, "--steady", steady, Duration.ZERO, Durations.MAX);
        common.check();
        processes = Math.min(processes, clients);
        boolean embedded = !spec.commandLine().getParseResult().hasMatchedOption("--redis")
                && System.getenv("WARDEN_REDIS") == null;
        RedisServer server = embedded ? RedisServer.start() : null;
        try {
            String uri = embedded ? server.uri() : common.redis;
            return contest(uri, embedded);
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    private int contest(String uri, boolean embedded) throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        DemoKeys keys = new DemoKeys(common.prefix, UUID.randomUUID().toString().substring(0, 8));
        Map.Entry<RedisURI, ClientOptions> connection = common.plainConnection(uri);
        RedisClient dataClient = RedisClient.create(connection.getKey());
        dataClient.setOptions(connection.getValue());
        try (StatefulRedisConnection<String, String> data = dataClient.connect()) {
            RedisCommands<String, String> redis = data.sync();
            redis.set(keys.prizes(), Integer.toString(prizes));
            out.printf("warden demo: %d clients in %d processes compete for %d prizes under lock '%s' on %s%n",
                    clients, processes, prizes, keys.lockName(),
                    embedded ? "an embedded Redis (" + uri + ")" : dev.warden.LockConfig.builder().redisUri(uri)
                            .build().redisUriForDisplay());
            out.flush();
            long started = System.nanoTime();
            List<Process> workers = startWorkers(uri, keys);
            List<WorkerOutput> outputs = new ArrayList<>();
            SteadyState steadyState = new SteadyState();
            for (Process worker : workers) {
                outputs.add(WorkerOutput.read(worker, steadyState));
            }
            for (WorkerOutput output : outputs) {
                output.ready.get(120, TimeUnit.SECONDS);
            }
            for (Process worker : workers) {
                worker.getOutputStream().write("GO\n".getBytes(StandardCharsets.UTF_8));
                worker.getOutputStream().flush();
            }
            Progress progress = new Progress(out, redis, keys, clients);
            ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "demo-progress");
                t.setDaemon(true);
                return t;
            });
            ticker.scheduleAtFixedRate(progress::show, 0, progress.interactive() ? 100 : 1000, TimeUnit.MILLISECONDS);
            Map<String, Long> totals = new LinkedHashMap<>();
            int failedWorkers = 0;
            List<String> results = new ArrayList<>();
            for (WorkerOutput output : outputs) {
                results.add(output.result.get(wait.toMillis() * 2 + 120_000, TimeUnit.MILLISECONDS));
            }
            ticker.shutdownNow();
            progress.show();
            progress.finish();
            double seconds = (System.nanoTime() - started) / 1e9;
            if (!steady.isZero()) {
                // Every process at once, now that the contest is over in all of them.
                for (Process worker : workers) {
                    worker.getOutputStream().write("STEADY\n".getBytes(StandardCharsets.UTF_8));
                    worker.getOutputStream().flush();
                }
            }
            for (int i = 0; i < workers.size(); i++) {
                Process worker = workers.get(i);
                if (!worker.waitFor(steady.toMillis() + wait.toMillis() + 60_000, TimeUnit.MILLISECONDS)) {
                    worker.destroyForcibly();
                }
                outputs.get(i).ended.get(10, TimeUnit.SECONDS);
                String line = results.get(i);
                if (worker.exitValue() != 0 || line == null) {
                    failedWorkers++;
                    continue;
                }
                for (String field : line.substring("RESULT ".length()).split(" ")) {
                    String[] kv = field.split("=");
                    long value = Long.parseLong(kv[1]);
                    switch (kv[0]) {
                        case "first" -> {
                            if (value > 0) {
                                totals.merge(kv[0], value, Math::min);
                            }
                        }
                        case "last" -> totals.merge(kv[0], value, Math::max);
                        default -> totals.merge(kv[0], value, Long::sum);
                    }
                }
            }
            long left = Long.parseLong(redis.get(keys.prizes()));
            long acquisitions = Long.parseLong(java.util.Objects.requireNonNullElse(redis.get(keys.acquisitions()), "0"));
            redis.del(keys.all().toArray(String[]::new));
            return summarize(out, totals, failedWorkers, left, acquisitions, seconds,
                    steady.isZero() ? null : steadyState.figures());
        } finally {
            dataClient.shutdown();
        }
    }

    private int summarize(PrintWriter out, Map<String, Long> totals, int failedWorkers, long left,
                          long acquisitions, double seconds, SteadyState.Figures steadyFigures) {
        long winners = totals.getOrDefault("winners", 0L);
        long empty = totals.getOrDefault("empty", 0L);
        long timeouts = totals.getOrDefault("timeouts", 0L);
        long overlaps = totals.getOrDefault("overlaps", 0L);
        long fenceViolations = totals.getOrDefault("fenceviolations", 0L);
        long errors = totals.getOrDefault("errors", 0L);
        long expectedLeft = Math.max(0, prizes - clients);
        double contest = Math.max(totals.getOrDefault("last", 0L) - totals.getOrDefault("first", 0L), 1) / 1e6;
        out.println();
        row(out, "winners", winners);
        row(out, "found the pool empty", empty);
        row(out, "timed out waiting", timeouts);
        row(out, "errors", errors);
        row(out, "acquisitions", acquisitions);
        row(out, "fencing tokens strictly increasing", fenceViolations == 0 ? "yes" : "NO (" + fenceViolations + ")");
        row(out, "overlapping holders detected", overlaps);
        row(out, "prizes left", left);
        row(out, "total time (with JVM starts)", String.format("%.2f s", seconds));
        row(out, "contest time (first to last acquisition)", String.format("%.3f s", contest));
        row(out, "acquisitions per second (contest)", String.format("%.0f", acquisitions / contest));
        if (steadyFigures != null) {
            row(out, "handoffs per second (steady state, " + Durations.format(steady) + ")",
                    String.format("%.0f", steadyFigures.perSecond()));
            row(out, "handoff p50 / p99 (steady state)", String.format("%.3f / %.3f ms",
                    steadyFigures.p50Nanos() / 1e6, steadyFigures.p99Nanos() / 1e6));
            row(out, "overlapping holders (steady state)", steadyFigures.overlaps());
        }
        out.println();
        out.println("  The contest's rate is set by cold JVMs and the seven round trips each client makes under the "
                + "lock;");
        out.println(steadyFigures == null ? "  --steady 3s measures the lock's own handoffs."
                : "  the steady state is the lock's own: warm processes handing it to each other.");
        out.println();
        String failure = null;
        if (failedWorkers > 0) {
            failure = failedWorkers + " worker process(es) failed";
        } else if (overlaps != 0) {
            failure = overlaps + " overlapping holders detected";
        } else if (steadyFigures != null && steadyFigures.overlaps() != 0) {
            failure = steadyFigures.overlaps() + " overlapping holders in the steady state";
        } else if (!steady.isZero() && steadyFigures == null) {
            failure = "the steady state made fewer than two handoffs";
        } else if (fenceViolations != 0) {
            failure = "fencing tokens went backwards " + fenceViolations + " time(s)";
        } else if (errors != 0) {
            failure = errors + " client(s) failed with an error";
        } else if (left != expectedLeft || winners != prizes - expectedLeft) {
            failure = "prizes left " + left + " and winners " + winners + ", expected " + expectedLeft + " and "
                    + (prizes - expectedLeft);
        } else if (winners + empty + timeouts != clients) {
            failure = "only " + (winners + empty + timeouts) + " of " + clients + " clients reported";
        }
        out.println(failure == null ? "OK: every invariant holds." : "FAILED: " + failure);
        out.flush();
        if (failure != null) {
            spec.commandLine().getErr().println("warden demo: " + failure);
            spec.commandLine().getErr().flush();
            return ExitCodes.INVARIANT_VIOLATED;
        }
        return ExitCodes.OK;
    }

    private static void row(PrintWriter out, String label, Object value) {
        out.printf("  %-42s %s%n", label, value);
    }

    private List<Process> startWorkers(String uri, DemoKeys keys) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> workers = new ArrayList<>();
        for (int i = 0; i < processes; i++) {
            int share = clients / processes + (i < clients % processes ? 1 : 0);
            List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                    Main.class.getName(), "demo-worker", "--redis", uri, "--prefix", common.prefix,
                    "--timeout", common.timeout.toMillis() + "ms", "--run", keys.run(),
                    "--clients", Integer.toString(share), "--wait", wait.toMillis() + "ms",
                    "--steady", steady.toMillis() + "ms"));
            command.addAll(common.credentialArguments());
            workers.add(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
        }
        return workers;
    }

    /**
     * A worker's stdout: READY once connected, a RESULT line after the contest, then its steady-state holds
     * ({@code HOLD} lines, into {@code steady}) until it exits.
     */
    private static final class WorkerOutput {
        final CompletableFuture<Void> ready = new CompletableFuture<>();
        /** The RESULT line, or null if the worker exited without one. */
        final CompletableFuture<String> result = new CompletableFuture<>();
        final CompletableFuture<Void> ended = new CompletableFuture<>();

        static WorkerOutput read(Process worker, SteadyState steady) {
            WorkerOutput output = new WorkerOutput();
            Thread reader = new Thread(() -> {
                try (BufferedReader lines = new BufferedReader(
                        new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = lines.readLine()) != null) {
                        if (line.equals("READY")) {
                            output.ready.complete(null);
                        } else if (line.startsWith("RESULT ")) {
                            output.result.complete(line);
                        } else if (line.startsWith("HOLD ")) {
                            steady.add(line);
                        }
                    }
                } catch (IOException e) {
                    output.ready.completeExceptionally(e);
                }
                output.ready.completeExceptionally(new IllegalStateException("a worker process exited early"));
                output.result.complete(null);
                output.ended.complete(null);
            }, "demo-worker-output");
            reader.setDaemon(true);
            reader.start();
            return output;
        }
    }

    /** The live progress bar on a terminal, or a plain line a second otherwise. */
    private static final class Progress {
        private final PrintWriter out;
        private final RedisCommands<String, String> redis;
        private final DemoKeys keys;
        private final int clients;
        private final boolean interactive = System.console() != null;
        private String last = "";

        Progress(PrintWriter out, RedisCommands<String, String> redis, DemoKeys keys, int clients) {
            this.out = out;
            this.redis = redis;
            this.keys = keys;
            this.clients = clients;
        }

        boolean interactive() {
            return interactive;
        }

        synchronized void show() {
            String done = redis.get(keys.done());
            String left = redis.get(keys.prizes());
            int finished = done == null ? 0 : Integer.parseInt(done);
            int width = 30;
            int filled = (int) ((long) finished * width / clients);
            String line = String.format("[%s%s] %3d/%d clients done, %s prizes left", "#".repeat(filled),
                    ".".repeat(width - filled), finished, clients, left == null ? "?" : left);
            if (interactive) {
                out.print("\r" + line);
            } else if (!line.equals(last)) {
                out.println(line);
            }
            last = line;
            out.flush();
        }

        synchronized void finish() {
            if (interactive) {
                out.println();
                out.flush();
            }
        }
    }
}
