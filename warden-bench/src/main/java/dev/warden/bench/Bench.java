package dev.warden.bench;

import dev.warden.redisserver.RedisServer;
import dev.warden.redisserver.Resp;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs the scenarios for every contender against one Redis, each contender in a JVM of its own, in interleaved
 * rounds (A B C A B C ...) so that drift of the machine hits all alike, and reports the median of the rounds with
 * their {@linkplain Spread spread} (least and most round; each round's value in the JSON), and Warden's ratios to the
 * others with theirs, in a plain table and a JSON file.
 *
 * <p>Options: {@code --seconds N} per scenario and round (1), {@code --rounds N} (3), {@code --warmup N} seconds
 * of untimed load before each contender's first run (3), {@code --scenarios S1,S2,S3,S4,S3C,S4C} (S9, 64 clients
 * on 8 names, its smaller sizes S9_8 and S9_24, 8 and 24 clients at 8 per name, and S10, S10m and S11, the
 * read-write lock on one client and on four and the semaphore, only when named; S9 with a smaller size also writes
 * {@code S9-curve.svg}), {@code --contenders warden,floor,redisson,redisson-fair} ({@code redisson-expirable},
 * Redisson's RPermitExpirableSemaphore in S11, only when named),
 * {@code --resources S5,S6} (a blank value for none), {@code --scale S7,S8} ({@link Scale}: none by default),
 * {@code --s5-seconds N} how long S5 holds its leases (15), {@code --s5-leases N} (10000), {@code --s6-locks N}
 * (100000), {@code --out DIR} (bench-results), {@code --redis URI} (default: a redis-server started here).
 *
 * <p>{@code --scenarios L1} runs the leadership handover ({@link Handover}) for {@code --contenders
 * warden,spring,curator}, with {@code --l1-stepdowns N} (20), {@code --l1-kills N} (5), {@code --l1-lease S}
 * seconds of lease, lock expiry and session timeout (10) and {@code --l1-idle S} seconds of idle counting (6); a run
 * of L1 alone runs no S5 or S6 unless {@code --resources} names them.
 */
public final class Bench {
    /** The leadership scenario, {@link Handover}: not a timed {@link Scenario}, reported as a measurement. */
    static final String LEADERSHIP = "L1";
    /** How many clients of a scenario are opened or closed at once. */
    private static final int OPENERS = 4;

    private Bench() {
    }

    public static void main(String[] args) throws Exception {
        long started = System.nanoTime();
        Map<String, String> options = options(args);
        Duration seconds = seconds(options, "seconds", "1");
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
        Duration warmup = seconds(options, "warmup", "3");
        List<String> named = Arrays.stream(options.getOrDefault("scenarios", "S1,S2,S3,S4,S3C,S4C").split(","))
                .filter(name -> !name.isBlank()).toList();
        boolean leadership = named.contains(LEADERSHIP);
        List<Scenario> scenarios = named.stream().filter(name -> !name.equals(LEADERSHIP)).map(Scenario::valueOf)
                .toList();
        List<String> contenders = List.of(options.getOrDefault("contenders", String.join(",", Contenders.NAMES))
                .split(","));
        Path out = Path.of(options.getOrDefault("out", "bench-results"));
        try (Backends backends = Backends.start(options.get("redis"), contenders)) {
            String uri = backends.servers().redis();
            RedisServer server = backends.redisServer();
            Results results = scenarios.isEmpty() ? new Results(scenarios, contenders)
                    : run(backends.servers(), scenarios, contenders, seconds, rounds, warmup);
            if (leadership) {
                leadership(backends.servers(), contenders, Handover.Settings.of(options), results, started);
            }
            // A run of L1 alone measures nothing else unless asked.
            for (String resource : options.getOrDefault("resources", leadership && scenarios.isEmpty() ? ""
                    : "S5,S6").split(",")) {
                for (String name : List.of("warden", "redisson")) {
                    if (!resource.isBlank() && contenders.contains(name)) {
                        try {
                            results.resources(resource, name, resource.equals("S5")
                                    ? Resources.renewals(name, uri, Integer.parseInt(options.getOrDefault(
                                            "s5-leases", "10000")), Duration.ofSeconds(3), Duration.ofSeconds(
                                            Long.parseLong(options.getOrDefault("s5-seconds", "15"))))
                                    : Resources.memory(name, uri, Integer.parseInt(options.getOrDefault("s6-locks",
                                            "100000"))));
                            System.err.printf(Locale.ROOT, "%s %s done, %.0f s in%n", resource, name,
                                    (System.nanoTime() - started) / 1e9);
                        } catch (RuntimeException e) {
                            // The scenarios' figures are already measured; one failed measurement must not lose them.
                            System.err.printf("%s %s failed: %s%n", resource, name, e);
                        }
                    }
                }
            }
            Map<String, Map<Integer, Map<String, Map<String, Double>>>> curves = new LinkedHashMap<>();
            for (String scale : options.getOrDefault("scale", "").split(",")) {
                if (scale.isBlank()) {
                    continue;
                }
                for (int size : Scale.sizes(scale, options)) {
                    for (String name : List.of("warden", "redisson")) {
                        if (contenders.contains(name)) {
                            try {
                                Map<String, Double> figures = Scale.run(scale, name, uri, size, options);
                                results.resources(Scale.key(scale, size), name, figures);
                                curves.computeIfAbsent(scale, k -> new LinkedHashMap<>())
                                        .computeIfAbsent(size, k -> new LinkedHashMap<>()).put(name, figures);
                                System.err.printf(Locale.ROOT, "%s %s done, %.0f s in%n", Scale.key(scale, size),
                                        name, (System.nanoTime() - started) / 1e9);
                            } catch (RuntimeException e) {
                                System.err.printf("%s %s failed: %s%n", Scale.key(scale, size), name, e);
                            }
                        }
                    }
                }
            }
            String table = results.table();
            System.out.print(table);
            Files.createDirectories(out);
            Files.writeString(out.resolve("results.json"), results.json(uri, server, seconds, rounds),
                    StandardCharsets.UTF_8);
            Files.writeString(out.resolve("results.txt"), table, StandardCharsets.UTF_8);
            String footer = footer(server, rounds, seconds);
            for (Scenario scenario : scenarios) {
                String svg = Charts.svg(results, scenario, contenders, footer);
                if (svg != null) {
                    Files.writeString(out.resolve(scenario + ".svg"), svg, StandardCharsets.UTF_8);
                }
            }
            String capacity = Charts.capacity(results, scenarios, contenders,
                    results.resources().getOrDefault("S5", Map.of()), footer);
            if (capacity != null) {
                Files.writeString(out.resolve("capacity.svg"), capacity, StandardCharsets.UTF_8);
            }
            // S9 and its smaller sizes are timed scenarios: their curve shows medians of rounds, as the footer says.
            String s9 = Curves.svg("S9", Curves.s9(results, scenarios, contenders), footer);
            if (s9 != null) {
                Files.writeString(out.resolve("S9-curve.svg"), s9, StandardCharsets.UTF_8);
            }
            for (Map.Entry<String, Map<Integer, Map<String, Map<String, Double>>>> curve : curves.entrySet()) {
                String svg = Curves.svg(curve.getKey(), curve.getValue(), footer.replaceAll("; median of .*",
                        "; one run per size"));
                if (svg != null) {
                    Files.writeString(out.resolve(curve.getKey() + "-curve.svg"), svg, StandardCharsets.UTF_8);
                }
            }
            System.out.printf(Locale.ROOT, "wrote %s, results.txt, a chart per scenario and capacity.svg; %.0f s in "
                    + "all%n", out.resolve("results.json"), (System.nanoTime() - started) / 1e9);
        }
    }

    /**
     * Runs {@link Handover L1} for each contender that has a leader election in it ({@link LeaderCandidate#NAMES}),
     * one after the other, into {@code results} as a measurement of one run; a contender whose run fails is told on
     * stderr and left out, so that the others' figures are kept.
     */
    static void leadership(Contenders.Servers servers, List<String> contenders, Handover.Settings settings,
                           Results results, long started) throws InterruptedException {
        for (String name : contenders) {
            if (!LeaderCandidate.NAMES.contains(name)) {
                System.err.printf("%s has no leader election in %s: skipped%n", name, LEADERSHIP);
                continue;
            }
            try {
                results.resources(LEADERSHIP, name, Handover.run(name, servers, settings));
                System.err.printf(Locale.ROOT, "%s %s done, %.0f s in%n", LEADERSHIP, name,
                        (System.nanoTime() - started) / 1e9);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                System.err.printf("%s %s failed: %s%n", LEADERSHIP, name, e);
                e.printStackTrace();
            }
        }
    }

    /**
     * Runs every scenario for every contender, each contender in a {@linkplain Fork JVM of its own}. Each timed run
     * also reports what it cost Redis per acquisition ({@link #measure}): the load a lock puts on the server. The
     * requests and CPU of {@code warden-quorum} are counted on its first server only. A contender that runs
     * uncontended only (the PING line, the fenced floor) skips the scenarios that share a key. All contenders are first
     * {@linkplain #warmUp warmed up} for {@code warmup} each, untimed, so that none is measured while the JIT is
     * still compiling.
     */
    static Results run(Contenders.Servers servers, List<Scenario> scenarios, List<String> contenders,
                       Duration seconds, int rounds, Duration warmup) throws Exception {
        Results results = new Results(scenarios, contenders);
        long started = System.nanoTime();
        Map<String, Fork> forks = new LinkedHashMap<>();
        try {
            for (String name : contenders) {
                forks.put(name, Fork.launch(name, servers));
            }
            for (Fork fork : forks.values()) {
                fork.awaitReady();
            }
            if (!warmup.isZero()) {
                for (Fork fork : forks.values()) {
                    warmUp(fork, warmup, scenarios);
                }
            }
            for (int round = 0; round < rounds; round++) {
                for (Scenario scenario : scenarios) {
                    for (String name : contenders) {
                        Fork fork = forks.get(name);
                        int r = round;
                        withOpened(fork, scenario, () -> {
                            count(servers, scenario, name, fork, results);
                            Map<String, Double> measured = measure(servers, fork, seconds, "r" + r + ":");
                            results.add(scenario, name, measured);
                            System.err.printf(Locale.ROOT, "round %d/%d %s %s: %.0f ops/s%n", r + 1, rounds,
                                    scenario, name, measured.get("ops/s"));
                        });
                    }
                }
                System.err.printf(Locale.ROOT, "round %d/%d done, %.0f s in%n", round + 1, rounds,
                        (System.nanoTime() - started) / 1e9);
            }
        } finally {
            forks.values().forEach(Fork::close);
        }
        return results;
    }

    /**
     * One timed run of the open scenario, with what it cost Redis (NaN for a contender that does not use it): its main
     * thread's CPU per acquisition ({@value Results#REDIS_CPU}) and the commands it ran per acquisition, those of
     * scripts included ({@value Results#COMMANDS}), from {@code INFO} on a connection opened before the run.
     */
    private static Map<String, Double> measure(Contenders.Servers servers, Fork fork, Duration seconds, String label)
            throws Exception {
        try (ServerCost server = fork.onRedis() ? ServerCost.open(servers.redis()) : null) {
            ServerCost.Reading before = server == null ? null : server.read();
            Map<String, Double> measured = new LinkedHashMap<>(fork.run(seconds, label));
            double acquisitions = measured.remove(Scenario.ACQUISITIONS);
            ServerCost.Cost cost = server == null || acquisitions == 0 ? new ServerCost.Cost(Double.NaN, Double.NaN)
                    : server.read().since(before, acquisitions);
            measured.put(Results.REDIS_CPU, cost.cpuMicros());
            measured.put(Results.COMMANDS, cost.commands());
            return measured;
        }
    }

    /**
     * Untimed load under S2 (16 threads on their own keys) and S3 (8 threads on one key), and, if the run has a
     * client-per-thread scenario, under S3C, where the contender locks: enough calls for the JIT to compile its
     * uncontended and contended paths. S3C gets two thirds of {@code warmup} and the others a sixth each, since
     * the path between clients (pub/sub, grants, wake-ups) runs a few thousand times a second there, and S2 and S3
     * run ten times as many calls in the same time. With 1 s of S3C, Warden's fair mode and Redisson still ran their
     * first two S3C rounds at 55-65 % of the rate of their later ones, and the raw floor, whose path S2 and S3
     * already run, at 85-93 % (docs/bench/README.md has the runs).
     *
     * <p>The read-write lock and the semaphore run other code than the lock: the run's scenarios of those kinds
     * (S10, S10m, S11) are warmed up themselves, sharing {@code warmup} equally, or half of it when the run also has
     * lock scenarios.
     */
    private static void warmUp(Fork fork, Duration warmup, List<Scenario> scenarios) throws Exception {
        List<Scenario> others = scenarios.stream().filter(scenario -> scenario.kind != Scenario.Kind.LOCK).toList();
        Duration forLocks = others.isEmpty() ? warmup
                : others.size() == scenarios.size() ? Duration.ZERO : warmup.dividedBy(2);
        if (!forLocks.isZero()) {
            boolean betweenClients = scenarios.stream().anyMatch(scenario -> scenario.clientPerThread);
            Duration each = betweenClients ? forLocks.dividedBy(6) : forLocks.dividedBy(2);
            withOpened(fork, Scenario.S2, () -> fork.run(each, "warmup:"));
            withOpened(fork, Scenario.S3, () -> fork.run(each, "warmup:"));
            if (betweenClients) {
                withOpened(fork, Scenario.S3C, () -> fork.run(forLocks.minus(each.multipliedBy(2)), "warmup:"));
            }
        }
        for (Scenario other : others) {
            withOpened(fork, other, () -> fork.run(warmup.minus(forLocks).dividedBy(others.size()), "warmup:"));
        }
        System.err.printf("warm-up %s done%n", fork);
    }

    /** What runs while a scenario's contenders are open in a fork. */
    private interface InScenario {
        void run() throws Exception;
    }

    /** Opens the scenario's contenders in the fork, runs {@code body} and closes them; nothing if it takes no part. */
    private static void withOpened(Fork fork, Scenario scenario, InScenario body) throws Exception {
        if (!fork.open(scenario)) {
            return;
        }
        try {
            body.run();
        } finally {
            fork.closeScenario();
        }
    }

    /**
     * Each round's untimed warm-up doubles as the count of requests per operation, seen with MONITOR (NaN for a
     * contender that does not use Redis), so that {@value Results#REQUESTS} has a value per round as the timed
     * figures do. A short run first lets the contender connect and load its scripts, which it does once per client
     * and not per operation.
     */
    private static void count(Contenders.Servers servers, Scenario scenario, String name, Fork fork,
                              Results results) throws Exception {
        Duration window = Duration.ofMillis(300);
        fork.run(Duration.ofMillis(100), "warmup:");
        if (!fork.onRedis()) {
            fork.run(window, "warmup:");
            results.requests(scenario, name, Double.NaN);
            return;
        }
        URI parsed = URI.create(servers.redis());
        try (RequestCounter counter = new RequestCounter(parsed.getHost(), parsed.getPort());
             Resp admin = new Resp(parsed.getHost(), parsed.getPort(), Duration.ofSeconds(10))) {
            Map<String, Double> sample = fork.run(window, "count:");
            long requests = counter.finish(command -> {
                try {
                    admin.call(command);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            double ops = sample.get(Scenario.ACQUISITIONS);
            results.requests(scenario, name, ops == 0 ? 0 : requests / ops);
        }
    }

    /** The machine, Redis and library versions, for the charts. */
    static String footer(RedisServer server, int rounds, Duration seconds) {
        return String.format(Locale.ROOT, "%d cores, Java %s, Redis %s; Lettuce %s, Redisson %s, Spring Integration %s, "
                        + "Curator %s, ZooKeeper %s; median of %d rounds of %.1f s",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
                server == null ? "external" : server.majorVersion() + ".x",
                version("io.lettuce", "lettuce-core"), version("org.redisson", "redisson"),
                version("org.springframework.integration", "spring-integration-redis"),
                version("org.apache.curator", "curator-recipes"), version("org.apache.zookeeper", "zookeeper"),
                rounds, seconds.toMillis() / 1000.0);
    }

    /** A library's version, from the {@code pom.properties} its jar carries. */
    static String version(String group, String artifact) {
        String resource = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (var in = Bench.class.getResourceAsStream(resource)) {
            if (in == null) {
                return bundledVersion(artifact);
            }
            java.util.Properties properties = new java.util.Properties();
            properties.load(in);
            return properties.getProperty("version", "?");
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    /** The version of a jar that has no pom.properties, as the bench's build recorded it; "?" if unknown. */
    private static String bundledVersion(String artifact) {
        try (var in = Bench.class.getResourceAsStream("versions.properties")) {
            java.util.Properties properties = new java.util.Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty(artifact, "?");
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    /**
     * As many contenders as the scenario has {@linkplain Scenario#clients clients} (one shared by its threads, one per
     * thread, or S10m's four); none when the contender {@linkplain Contender#takesPart takes no part} in the
     * scenario. A client per thread is opened
     * {@value #OPENERS} at a time: sixteen Redisson or Spring clients one after the other took up to a second per
     * run. If one fails to open, those already open are closed.
     */
    static List<Contender> open(String name, Contenders.Servers servers, Scenario scenario) throws Exception {
        Contender first = Contenders.open(name, servers);
        if (!first.takesPart(scenario)) {
            first.close();
            return List.of();
        }
        int count = scenario.clients;
        List<Future<Contender>> rest = new ArrayList<>();
        ExecutorService openers = Executors.newFixedThreadPool(OPENERS);
        try {
            for (int c = 1; c < count; c++) {
                rest.add(openers.submit(() -> Contenders.open(name, servers)));
            }
        } finally {
            openers.shutdown();
        }
        List<Contender> opened = new ArrayList<>(List.of(first));
        Exception failure = null;
        for (Future<Contender> next : rest) {
            try {
                opened.add(next.get());
            } catch (ExecutionException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            close(opened);
            throw failure;
        }
        return opened;
    }

    /** Closes the contenders of a scenario, {@value #OPENERS} at a time. */
    static void close(List<Contender> opened) {
        if (opened.size() == 1) {
            opened.get(0).close();
            return;
        }
        ExecutorService closers = Executors.newFixedThreadPool(OPENERS);
        try {
            opened.forEach(contender -> closers.execute(contender::close));
        } finally {
            closers.shutdown();
        }
        try {
            if (!closers.awaitTermination(2, TimeUnit.MINUTES)) {
                throw new IllegalStateException("contenders still closing after 2 minutes");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while closing contenders", e);
        }
    }

    /** A duration option given in seconds, fractions allowed. */
    private static Duration seconds(Map<String, String> options, String name, String fallback) {
        return Duration.ofMillis((long) (Double.parseDouble(options.getOrDefault(name, fallback)) * 1000));
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --option value, got: " + args[i]);
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }

    /**
     * Figures per scenario and contender, with every round kept: reports each figure's median with its
     * {@linkplain Spread spread} over the rounds, and Warden's ratios to the others, the ratio of the medians with the
     * least and most ratio of the rounds.
     */
    static final class Results {
        /** Redis's main-thread CPU per acquisition (per lock and unlock pair in S1 and S2), in microseconds. */
        static final String REDIS_CPU = "redis cpu us/op";
        /** The acquisitions per second one Redis core serves at {@link #REDIS_CPU}: 10^6 over it. */
        static final String CAPACITY = "redis capacity ops/s";
        /** The requests clients sent per acquisition, counted with MONITOR in each round's untimed phase. */
        static final String REQUESTS = "requests/op";
        /** The commands Redis ran per acquisition, those that scripts call included. */
        static final String COMMANDS = "commands/op";
        /** The server's cost, reported together after a scenario's own figures. */
        static final List<String> COST = List.of(REDIS_CPU, CAPACITY, REQUESTS, COMMANDS);

        private final List<Scenario> scenarios;
        private final List<String> contenders;
        private final Map<String, Map<String, List<Double>>> rounds = new LinkedHashMap<>();
        private final Map<String, Map<String, Map<String, Double>>> resources = new LinkedHashMap<>();

        Results(List<Scenario> scenarios, List<String> contenders) {
            this.scenarios = scenarios;
            this.contenders = contenders;
        }

        void add(Scenario scenario, String contender, Map<String, Double> figures) {
            Map<String, List<Double>> byFigure = rounds.computeIfAbsent(scenario + "/" + contender,
                    k -> new LinkedHashMap<>());
            figures.forEach((figure, value) -> byFigure.computeIfAbsent(figure, f -> new ArrayList<>()).add(value));
        }

        void resources(String scenario, String contender, Map<String, Double> figures) {
            resources.computeIfAbsent(scenario, s -> new LinkedHashMap<>()).put(contender, figures);
        }

        Map<String, Map<String, Map<String, Double>>> resources() {
            return resources;
        }

        /** Adds a round's {@link #REQUESTS}. */
        void requests(Scenario scenario, String contender, double perOp) {
            add(scenario, contender, Map.of(REQUESTS, perOp));
        }

        /** @return the median of the rounds that have a value; NaN if none has */
        double median(Scenario scenario, String contender, String figure) {
            return Spread.of(roundValues(scenario, contender, figure)).value();
        }

        double requestsPerOp(Scenario scenario, String contender) {
            return median(scenario, contender, REQUESTS);
        }

        /**
         * @return each round's value of a figure, in the order run; for {@link #CAPACITY}, the capacity at each
         *         round's {@link #REDIS_CPU}
         */
        List<Double> roundValues(Scenario scenario, String contender, String figure) {
            Map<String, List<Double>> byFigure = rounds.getOrDefault(scenario + "/" + contender, Map.of());
            if (figure.equals(CAPACITY)) {
                return byFigure.getOrDefault(REDIS_CPU, List.of()).stream().map(ServerCost.Cost::capacity).toList();
            }
            return byFigure.getOrDefault(figure, List.of());
        }

        /** @return a figure as reported ({@link #value}) with the least and most of its rounds, and each round's */
        Spread spread(Scenario scenario, String contender, String figure) {
            return Spread.of(roundValues(scenario, contender, figure)).withValue(value(scenario, contender, figure));
        }

        /**
         * @return Warden's figure over {@code other}'s: the ratio of the medians, with the least and most ratio of
         *         the rounds
         */
        Spread ratio(Scenario scenario, String other, String figure) {
            return Spread.ratio(spread(scenario, "warden", figure), spread(scenario, other, figure));
        }

        /**
         * @return the figures of Warden's ratios in the JSON: throughput, {@link Scenario#latencyFigure()} and the
         *         cost to the server, those of them the scenario has
         */
        List<String> ratioFigures(Scenario scenario) {
            List<String> figures = new ArrayList<>(List.of("ops/s", scenario.latencyFigure(), REDIS_CPU, REQUESTS,
                    COMMANDS));
            figures.retainAll(rows(scenario));
            return figures;
        }

        /** @return the most rounds any contender ran the scenario */
        private int roundCount(Scenario scenario) {
            int most = 0;
            for (String contender : contenders) {
                most = Math.max(most, roundValues(scenario, contender, "ops/s").size());
            }
            return most;
        }

        /** @return the acquisitions per second one Redis core serves at the median {@link #REDIS_CPU}; NaN if none */
        double capacity(Scenario scenario, String contender) {
            return ServerCost.Cost.capacity(median(scenario, contender, REDIS_CPU));
        }

        /** @return a figure's median, or {@link #CAPACITY}, derived from the median {@link #REDIS_CPU} */
        double value(Scenario scenario, String contender, String figure) {
            return figure.equals(CAPACITY) ? capacity(scenario, contender) : median(scenario, contender, figure);
        }

        /** @return the figures of a scenario as reported: its own, then {@link #COST} */
        List<String> rows(Scenario scenario) {
            List<String> rows = new ArrayList<>(figures(scenario));
            rows.removeAll(COST);
            rows.addAll(COST);
            return rows;
        }

        List<String> figures(Scenario scenario) {
            for (String contender : contenders) {
                Map<String, List<Double>> byFigure = rounds.get(scenario + "/" + contender);
                if (byFigure != null) {
                    return new ArrayList<>(byFigure.keySet());
                }
            }
            return List.of();
        }

        String table() {
            StringBuilder out = new StringBuilder();
            for (Scenario scenario : scenarios) {
                boolean spread = roundCount(scenario) > 1;
                out.append(String.format(Locale.ROOT, "%n%s: %s (median of rounds%s)%n", scenario,
                        scenario.description, spread ? "; below each, the least and most round" : ""));
                out.append(String.format(Locale.ROOT, "  %-20s", "figure"));
                // Columns of 15, wider for a longer name, such as redisson-expirable.
                contenders.forEach(c -> out.append(String.format(Locale.ROOT, "%" + column(c) + "s", c)));
                out.append('\n');
                for (String figure : rows(scenario)) {
                    out.append(String.format(Locale.ROOT, "  %-20s", figure));
                    for (String contender : contenders) {
                        double value = value(scenario, contender, figure);
                        String width = "%" + column(contender);
                        out.append(Double.isNaN(value) ? String.format(Locale.ROOT, width + "s", "n/a")
                                : String.format(Locale.ROOT, width + (value >= 100 ? ".0f" : ".2f"), value));
                    }
                    out.append('\n');
                    if (spread) {
                        out.append(String.format(Locale.ROOT, "  %-20s", "  min-max"));
                        for (String contender : contenders) {
                            Spread rounds = spread(scenario, contender, figure);
                            out.append(String.format(Locale.ROOT, "%" + column(contender) + "s",
                                    Double.isNaN(rounds.min()) ? "n/a" : range(rounds)));
                        }
                        out.append('\n');
                    }
                }
                if (contenders.contains("warden")) {
                    for (String other : contenders) {
                        if (!other.equals("warden")) {
                            ratios(out, scenario, other);
                        }
                    }
                }
            }
            for (Map.Entry<String, Map<String, Map<String, Double>>> resource : resources.entrySet()) {
                out.append(String.format(Locale.ROOT, "%n%s: %s (one run)%n", resource.getKey(),
                        describe(resource.getKey())));
                Map<String, Map<String, Double>> byContender = resource.getValue();
                out.append(String.format(Locale.ROOT, "  %-38s", "figure"));
                byContender.keySet().forEach(c -> out.append(String.format(Locale.ROOT, "%15s", c)));
                out.append('\n');
                for (String figure : byContender.values().iterator().next().keySet()) {
                    out.append(String.format(Locale.ROOT, "  %-38s", figure));
                    for (Map<String, Double> figures : byContender.values()) {
                        double value = figures.getOrDefault(figure, Double.NaN);
                        out.append(String.format(Locale.ROOT, value >= 100 ? "%15.0f" : "%15.3f", value));
                    }
                    out.append('\n');
                }
            }
            return out.toString();
        }

        /**
         * Warden's throughput over another contender's; for the read-write lock and the semaphore also the ratios
         * of their targets (issue #26): the wait of {@link Scenario#latencyFigure()} and the requests per
         * acquisition; in every scenario Redis's CPU per acquisition (issue #42). Each is the ratio of the medians,
         * followed by the least and most ratio of the rounds where more than one round has one. "n/a" where the
         * other takes no part.
         */
        private void ratios(StringBuilder out, Scenario scenario, String other) {
            boolean absent = Double.isNaN(median(scenario, other, "ops/s"));
            List<String> figures = absent ? List.of("ops/s") : scenario.kind == Scenario.Kind.LOCK
                    ? List.of("ops/s", REDIS_CPU) : List.of("ops/s", scenario.latencyFigure(), REQUESTS, REDIS_CPU);
            for (String figure : figures) {
                Spread ratio = ratio(scenario, other, figure);
                String rounds = ratio.counted() > 1 ? String.format(Locale.ROOT, " (rounds %.2f-%.2f)", ratio.min(),
                        ratio.max()) : "";
                out.append(String.format(Locale.ROOT, "  warden / %-13s %s ratio %s%n", other, figure,
                        Double.isNaN(ratio.value()) ? "n/a"
                                : String.format(Locale.ROOT, "%.2f", ratio.value()) + rounds));
            }
        }

        /** @return the least and most round, as the table prints a figure */
        private static String range(Spread spread) {
            return format(spread.min()) + "-" + format(spread.max());
        }

        private static String format(double value) {
            return String.format(Locale.ROOT, value >= 100 ? "%.0f" : "%.2f", value);
        }

        /** What a resource or {@link Scale scale} measurement measures. */
        private static String describe(String key) {
            return switch (key) {
                case "S5" -> "many leases kept alive by the watchdog (3 s lease)";
                case "S6" -> "memory of held locks";
                case LEADERSHIP -> Handover.DESCRIPTION;
                default -> Scale.description(key.split(" ")[0]);
            };
        }

        /** The width of a contender's column in the table: 15, or one more than a longer name. */
        private static int column(String contender) {
            return Math.max(15, contender.length() + 1);
        }

        String json(String uri, RedisServer server, Duration seconds, int roundCount) {
            StringBuilder json = new StringBuilder("{\n");
            json.append(String.format(Locale.ROOT, "  \"when\": \"%s\",%n", Instant.now()));
            json.append(String.format(Locale.ROOT, "  \"machine\": {\"cores\": %d, \"os\": \"%s %s\", \"java\": \"%s\"},%n",
                    Runtime.getRuntime().availableProcessors(), System.getProperty("os.name"),
                    System.getProperty("os.arch"), System.getProperty("java.version")));
            json.append(String.format(Locale.ROOT, "  \"redis\": \"%s\",%n",
                    server == null ? "external" : "redis-server major version " + server.majorVersion()));
            json.append(String.format(Locale.ROOT, "  \"setup\": \"%s\",%n", footer(server, roundCount, seconds)));
            json.append(String.format(Locale.ROOT, "  \"secondsPerRun\": %.1f, \"rounds\": %d,%n",
                    seconds.toMillis() / 1000.0, roundCount));
            json.append("  \"results\": {\n");
            List<String> entries = new ArrayList<>();
            for (Scenario scenario : scenarios) {
                for (String contender : contenders) {
                    List<String> medians = new ArrayList<>();
                    List<String> byRound = new ArrayList<>();
                    List<String> spreads = new ArrayList<>();
                    for (String figure : rows(scenario)) {
                        Spread spread = spread(scenario, contender, figure);
                        medians.add(String.format(Locale.ROOT, "\"%s\": %s", figure, number(spread.value())));
                        byRound.add(String.format(Locale.ROOT, "\"%s\": %s", figure, numbers(spread.rounds())));
                        spreads.add(String.format(Locale.ROOT, "\"%s\": {\"min\": %s, \"median\": %s, \"max\": %s}",
                                figure, number(spread.min()), number(spread.value()), number(spread.max())));
                    }
                    entries.add(String.format(Locale.ROOT, "    \"%s/%s\": {%s,%n      \"rounds\": {%s},%n"
                                    + "      \"spread\": {%s}}", scenario, contender, String.join(", ", medians),
                            String.join(", ", byRound), String.join(", ", spreads)));
                }
            }
            for (Map.Entry<String, Map<String, Map<String, Double>>> resource : resources.entrySet()) {
                for (Map.Entry<String, Map<String, Double>> byContender : resource.getValue().entrySet()) {
                    List<String> parts = new ArrayList<>();
                    byContender.getValue().forEach((figure, value) -> parts.add(String.format(Locale.ROOT,
                            "\"%s\": %s", figure, number(value))));
                    entries.add(String.format(Locale.ROOT, "    \"%s/%s\": {%s}", resource.getKey(),
                            byContender.getKey(), String.join(", ", parts)));
                }
            }
            json.append(String.join(",\n", entries)).append("\n  },\n");
            json.append("  \"wardenOver\": {");
            List<String> ratios = new ArrayList<>();
            if (contenders.contains("warden")) {
                for (Scenario scenario : scenarios) {
                    for (String other : contenders) {
                        if (other.equals("warden") || Double.isNaN(median(scenario, "warden", "ops/s"))
                                || Double.isNaN(median(scenario, other, "ops/s"))) {
                            continue;
                        }
                        List<String> parts = new ArrayList<>();
                        for (String figure : ratioFigures(scenario)) {
                            Spread ratio = ratio(scenario, other, figure);
                            parts.add(String.format(Locale.ROOT, "\"%s\": {\"ratio\": %s, \"min\": %s, \"max\": %s, "
                                            + "\"rounds\": %s}", figure, number(ratio.value()), number(ratio.min()),
                                    number(ratio.max()), numbers(ratio.rounds())));
                        }
                        ratios.add(String.format(Locale.ROOT, "    \"%s/%s\": {%s}", scenario, other,
                                String.join(", ", parts)));
                    }
                }
            }
            json.append(ratios.isEmpty() ? "}\n" : "\n" + String.join(",\n", ratios) + "\n  }\n");
            json.append("}\n");
            return json.toString();
        }

        /** @return a figure in JSON: three decimals, or null where there is none (NaN) or it is infinite */
        private static String number(double value) {
            return Double.isFinite(value) ? String.format(Locale.ROOT, "%.3f", value) : "null";
        }

        private static String numbers(List<Double> values) {
            return values.stream().map(Results::number).collect(java.util.stream.Collectors.joining(", ", "[", "]"));
        }
    }
}
