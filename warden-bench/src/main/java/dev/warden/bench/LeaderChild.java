package dev.warden.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A leader in a JVM of its own, for {@link Handover L1}'s leader death: the child joins the election as the only
 * candidate, says {@value #ELECTED} on its stdout once elected, and leads until it is killed ({@link #kill()}, a
 * SIGKILL on Linux) or its stdin closes. Anything else it prints goes to stderr.
 */
final class LeaderChild implements AutoCloseable {
    private static final String ELECTED = "@leader elected";

    private final String name;
    private final Process process;
    private final CompletableFuture<Void> elected = new CompletableFuture<>();

    private LeaderChild(String name, Process process) {
        this.name = name;
        this.process = process;
        Thread reader = new Thread(this::readOutput, "leader-child-" + name + "-output");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts the child JVM of a candidate of {@code name}'s library in {@code election}.
     *
     * @throws UncheckedIOException if the process cannot be started
     */
    static LeaderChild launch(String name, Contenders.Servers servers, String election, Duration lease) {
        List<String> command = Fork.javaCommand(LeaderChild.class, List.of(name, servers.redis(),
                servers.zookeeper() == null ? "-" : servers.zookeeper(), election, Long.toString(lease.toMillis())));
        try {
            return new LeaderChild(name, new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the leader JVM of " + name, e);
        }
    }

    /**
     * Waits until the child leads.
     *
     * @throws IllegalStateException if it exits first or does not lead within {@code bound}
     */
    void awaitElected(Duration bound) throws Exception {
        try {
            elected.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException(name + ": the leader JVM was not elected within " + bound, e);
        }
    }

    /** Kills the child at once: SIGKILL on Linux, so it releases nothing. */
    void kill() {
        process.destroyForcibly();
    }

    /** Closes the child's stdin, which ends it, and kills it if it has not exited within 10 s. */
    @Override
    public void close() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // Already gone (killed): it is waited for, or killed, below all the same.
            System.err.printf("[leader %s] stdin already closed: %s%n", name, e);
        }
        Fork.awaitExit(process);
    }

    private void readOutput() {
        try {
            Fork.readLines(process, "leader " + name, line -> line.equals(ELECTED) && elected.complete(null));
        } catch (IOException e) {
            elected.completeExceptionally(e);
        }
        elected.completeExceptionally(new IllegalStateException(name + ": the leader JVM exited"));
    }

    /**
     * The child: joins the election and leads until its stdin closes. Arguments: the library's name, the Redis URI,
     * the ZooKeeper connect string (or "-"), the election's name, the lease in milliseconds.
     */
    public static void main(String[] args) throws Exception {
        PrintStream protocol = System.out;
        // Libraries that print to stdout must not break the protocol's line.
        System.setOut(System.err);
        Contenders.Servers servers = new Contenders.Servers(args[1], List.of(), args[2].equals("-") ? null : args[2]);
        try (LeaderCandidate candidate = LeaderCandidate.open(args[0], servers, args[3],
                Duration.ofMillis(Long.parseLong(args[4])))) {
            candidate.election().get(60, TimeUnit.SECONDS);
            protocol.println(ELECTED);
            protocol.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (in.readLine() != null) {
                // Nothing is said to the child; it leads until stdin closes or it is killed.
                continue;
            }
        }
    }
}
