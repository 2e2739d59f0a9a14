package dev.warden.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One contender in a JVM of its own, as JMH forks a benchmark: the bench starts one child process per contender and
 * drives it round by round, so that no library's classes, threads, garbage or compiled code weigh on another's
 * figures. The parent keeps what is shared: the servers, the order of the rounds, and the counting of requests.
 *
 * <p>The protocol is one line per message. The parent writes {@code open SCENARIO}, {@code run MILLIS LABEL},
 * {@code close} and {@code quit} to the child's stdin; the child answers each of the first three with one line on
 * its stdout that starts with {@value #MARK}. Anything else a library prints there is passed on to stderr.
 */
final class Fork implements AutoCloseable {
    private static final String MARK = "@fork ";
    private static final String EXITED = MARK + "exited";
    private static final Duration START_BOUND = Duration.ofSeconds(60);
    /** How long a command may take beyond the run it asks for. */
    private static final Duration REPLY_BOUND = Duration.ofSeconds(120);

    private final String name;
    private final Process process;
    private final Writer commands;
    private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private boolean onRedis;
    private boolean failed;

    private Fork(String name, Process process) {
        this.name = name;
        this.process = process;
        this.commands = process.outputWriter(StandardCharsets.UTF_8);
        Thread reader = new Thread(this::readReplies, "fork-" + name + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts the child JVM of one contender, with the JVM options of this one; {@link #awaitReady()} waits for it, so
     * that several can start at once.
     *
     * @throws UncheckedIOException if the process cannot be started
     */
    static Fork launch(String name, Contenders.Servers servers) {
        List<String> command = javaCommand(Fork.class, List.of(name, servers.redis(),
                servers.quorumPeers().isEmpty() ? "-" : String.join(",", servers.quorumPeers()),
                servers.zookeeper() == null ? "-" : servers.zookeeper()));
        Process process;
        try {
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the JVM of " + name, e);
        }
        return new Fork(name, process);
    }

    /**
     * @return the command that runs {@code main} with {@code args} in a JVM of its own, with this JVM's options and
     *         class path
     */
    static List<String> javaCommand(Class<?> main, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // A debugger's agent would ask for the same port twice.
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(argument -> !argument.startsWith("-agentlib:jdwp")).forEach(command::add);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(args);
        return command;
    }

    /**
     * Reads a child's stdout to its end: each line that {@code protocol} does not take (returns false for) is passed
     * on to stderr, after the child's {@code name}.
     */
    static void readLines(Process process, String name, java.util.function.Predicate<String> protocol)
            throws IOException {
        try (BufferedReader lines = process.inputReader(StandardCharsets.UTF_8)) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (!protocol.test(line)) {
                    System.err.println("[" + name + "] " + line);
                }
            }
        }
    }

    /**
     * Waits until the child has opened its contender once.
     *
     * @throws IllegalStateException if it fails to, or does not answer within a minute
     */
    void awaitReady() {
        onRedis = Boolean.parseBoolean(reply("ready", START_BOUND));
    }

    /** @return whether the contender uses the bench's Redis, whose requests are counted */
    boolean onRedis() {
        return onRedis;
    }

    /**
     * Opens the contenders a scenario needs in the child (see {@link Bench#open}).
     *
     * @return false if the contender takes no part in the scenario; nothing is open then
     */
    boolean open(Scenario scenario) {
        return send("open " + scenario, "opened", "skipped", REPLY_BOUND).equals("opened");
    }

    /** Runs the open scenario for {@code duration} on keys that start with {@code label}; returns its figures. */
    Map<String, Double> run(Duration duration, String label) {
        String figures = send("run " + duration.toMillis() + " " + label, "figures", null,
                REPLY_BOUND.plus(duration));
        Map<String, Double> parsed = new LinkedHashMap<>();
        for (String figure : figures.split("\t")) {
            int at = figure.lastIndexOf('=');
            parsed.put(figure.substring(0, at), Double.parseDouble(figure.substring(at + 1)));
        }
        return parsed;
    }

    /** Closes the contenders of the open scenario; nothing to do once the child has failed (it exits then). */
    void closeScenario() {
        if (!failed) {
            send("close", "closed", null, REPLY_BOUND);
        }
    }

    @Override
    public String toString() {
        return name;
    }

    /** Asks the child to exit, and kills it if it has not within 10 s. Idempotent. */
    @Override
    public void close() {
        try {
            commands.write("quit\n");
            commands.flush();
        } catch (IOException e) {
            // The child is gone already; it is killed below all the same.
        }
        awaitExit(process);
    }

    /** Waits up to 10 s for a child that was asked to exit, and kills it if it has not. */
    static void awaitExit(Process process) {
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Sends one command and returns the rest of its reply, which must start with {@code expected} or {@code other}
     * and come within {@code bound}.
     */
    private String send(String command, String expected, String other, Duration bound) {
        try {
            commands.write(command + "\n");
            commands.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot send '" + command + "'", e);
        }
        String reply = reply(other == null ? expected : null, bound);
        if (other != null && !reply.equals(expected) && !reply.equals(other)) {
            throw new IllegalStateException(name + " answered '" + command + "' with: " + reply);
        }
        return reply;
    }

    /** Waits for the next reply; strips {@code kind} from it, or returns it whole when {@code kind} is null. */
    private String reply(String kind, Duration bound) {
        String line;
        try {
            line = replies.poll(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(name + ": interrupted while waiting for its JVM", e);
        }
        if (line == null) {
            failed = true;
            process.destroyForcibly();
            throw new IllegalStateException(name + ": its JVM did not answer within " + bound);
        }
        String reply = line.substring(MARK.length());
        if (line.equals(EXITED) || reply.startsWith("error ")) {
            failed = true;
            throw new IllegalStateException(name + ": " + reply);
        }
        if (kind == null) {
            return reply;
        }
        if (!reply.equals(kind) && !reply.startsWith(kind + " ")) {
            throw new IllegalStateException(name + ": expected '" + kind + "', got: " + reply);
        }
        return reply.substring(kind.length()).strip();
    }

    private void readReplies() {
        try {
            readLines(process, name, line -> line.startsWith(MARK) && replies.add(line));
        } catch (IOException e) {
            System.err.println("[" + name + "] output lost: " + e);
        }
        replies.add(EXITED);
    }

    /**
     * The child: opens and runs its contender as the parent says. Arguments: the contender's name, the Redis URI, the
     * quorum peers (comma-separated, or "-"), the ZooKeeper connect string (or "-").
     */
    public static void main(String[] args) throws IOException {
        PrintStream protocol = System.out;
        // Libraries that print to stdout must not break the protocol's lines.
        System.setOut(System.err);
        String name = args[0];
        Contenders.Servers servers = new Contenders.Servers(args[1], args[2].equals("-") ? List.of()
                : Arrays.asList(args[2].split(",")), args[3].equals("-") ? null : args[3]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        List<Contender> opened = List.of();
        Scenario scenario = null;
        try {
            try (Contender probe = Contenders.open(name, servers)) {
                protocol.println(MARK + "ready " + probe.onRedis());
            }
            String line;
            while ((line = in.readLine()) != null && !line.equals("quit")) {
                String[] words = line.split(" ");
                switch (words[0]) {
                    case "open" -> {
                        scenario = Scenario.valueOf(words[1]);
                        opened = Bench.open(name, servers, scenario);
                        protocol.println(MARK + (opened.isEmpty() ? "skipped" : "opened"));
                    }
                    case "run" -> {
                        List<Contender> current = opened;
                        Map<String, Double> figures = scenario.run(t -> current.get(t % current.size()),
                                Duration.ofMillis(Long.parseLong(words[1])), words[2]);
                        protocol.println(MARK + "figures " + String.join("\t", figures.entrySet().stream()
                                .map(e -> e.getKey() + "=" + e.getValue())
                                .toList()));
                    }
                    case "close" -> {
                        Bench.close(opened);
                        opened = List.of();
                        protocol.println(MARK + "closed");
                    }
                    default -> throw new IllegalArgumentException("unknown command: " + line);
                }
            }
        } catch (Exception e) {
            e.printStackTrace();
            protocol.println(MARK + "error " + String.valueOf(e).replace('\n', ' '));
        } finally {
            opened.forEach(Contender::close);
        }
    }
}
