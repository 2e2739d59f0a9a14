package dev.warden.cli;

import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockInfo;
import dev.warden.ReadWriteLockInfo;
import dev.warden.SemaphoreInfo;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code warden locks [PATTERN]}: the locks, read-write locks and semaphores under the prefix that are held or have
 * waiters ({@link LockClient#locks(String, int)}, {@link LockClient#readWriteLocks(String, int)},
 * {@link LockClient#semaphores(String, int)}), as a table, as JSON, or refreshed in place with {@code --watch}.
 */
@Command(name = "locks", description = {"List the locks, read-write locks and semaphores under the key prefix that "
        + "are held or have waiters: kind, holder, held for, lease left, waiters, longest wait, fencing token and who "
        + "holds them, the longest waits first (then the most lease left). Reads Redis with SCAN and one short script "
        + "per lock, never KEYS; on a cluster, every master.",
        "An election of 'warden lead' is a lock: HELD BY is its leader, FENCE the epoch of its term, WAITERS its "
                + "candidates (warden inspect NAME says so in words).",
        "With --watch, refreshes in place on a terminal like top; off a terminal, prints a listing per refresh."})
final class LocksCommand implements Callable<Integer> {
    /** The shortest refresh interval: a listing reads every key under the prefix. */
    static final Duration MIN_INTERVAL = Duration.ofMillis(200);
    /** The longest refresh interval. */
    static final Duration MAX_INTERVAL = Duration.ofHours(1);
    /** The most locks one listing reads. */
    static final int MAX_LIMIT = 1_000_000;

    @Mixin
    CommonOptions common;

    @Mixin
    TopologyOptions topology;

    @Parameters(index = "0", arity = "0..1", paramLabel = "PATTERN", defaultValue = "*",
            description = "a glob over lock names (not keys): * any run of characters, ? one character, [a-z] one "
                    + "of a set, \\ makes the next character plain (so 'orders:\\*' is the name orders:*); braces "
                    + "are plain characters (default: *)")
    String pattern;

    @Option(names = "--literal", description = "PATTERN is a lock's name, matched exactly: * ? [ and \\ in it are "
            + "plain characters, as lock names may have them")
    boolean literal;

    @Option(names = "--json", description = "print each listing as one line of JSON")
    boolean json;

    @Option(names = "--watch", description = "list again every --interval until interrupted or --count listings")
    boolean watch;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "2s", converter = Durations.class,
            description = "with --watch, how often to list, from 200ms to 1h (default: ${DEFAULT-VALUE})")
    Duration interval;

    @Option(names = "--count", paramLabel = "N",
            description = "with --watch, stop after N listings (default: until interrupted)")
    Integer count;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "10000",
            description = "the most locks of each kind to read per listing, 1 to 1000000 (default: ${DEFAULT-VALUE})")
    int limit;


    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        Durations.check(spec, "--interval", interval, MIN_INTERVAL, MAX_INTERVAL);
        if (literal && !spec.commandLine().getParseResult().hasMatchedPositional(0)) {
            throw new ParameterException(spec.commandLine(), "--literal needs the PATTERN, a lock's name");
        }
        if (count != null && (!watch || count < 1)) {
            throw new IllegalArgumentException(watch ? "--count must be at least 1: " + count
                    : "--count goes with --watch");
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("--limit must be from 1 to " + MAX_LIMIT + ": " + limit);
        }
        LockConfig config = common.config(topology).build();
        PrintWriter out = spec.commandLine().getOut();
        // A terminal shows one view redrawn in place; anything else (a pipe, a file) gets a listing after another.
        boolean terminal = watch && !json && System.console() != null;
        try (LockClient client = LockClient.create(config)) {
            long lastStart = System.nanoTime();
            for (int done = 0; count == null || done < count; done++) {
                if (done > 0) {
                    // The interval runs from the start of one listing to the start of the next.
                    TimeUnit.NANOSECONDS.sleep(Math.max(0, interval.toNanos() - (System.nanoTime() - lastStart)));
                }
                lastStart = System.nanoTime();
                LocksView.Listing listing = list(client);
                if (json) {
                    out.print(LocksView.json(listing));
                } else if (terminal) {
                    int[] size = Terminal.size();
                    out.print((done == 0 ? LocksView.CLEAR : "") + LocksView.frame(listing, interval, size[0],
                            size[1]));
                } else {
                    out.print((done > 0 ? "\n" : "") + LocksView.table(listing));
                }
                out.flush();
                if (!watch) {
                    break;
                }
            }
        }
        return ExitCodes.OK;
    }

    private LocksView.Listing list(LockClient client) {
        Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        long start = System.nanoTime();
        List<LocksView.Row> rows = new ArrayList<>();
        String glob = glob();
        List<LockInfo> locks = client.locks(glob, limit);
        locks.forEach(info -> rows.add(LocksView.Row.of(info)));
        boolean limitReached = locks.size() >= limit;
        // A quorum has locks only.
        if (!topology.quorum) {
            List<ReadWriteLockInfo> readWriteLocks = client.readWriteLocks(glob, limit);
            readWriteLocks.forEach(info -> rows.add(LocksView.Row.of(info)));
            List<SemaphoreInfo> semaphores = client.semaphores(glob, limit);
            semaphores.forEach(info -> rows.add(LocksView.Row.of(info)));
            limitReached |= readWriteLocks.size() >= limit || semaphores.size() >= limit;
        }
        return new LocksView.Listing(common.prefix, glob, rows, limitReached,
                Duration.ofNanos(System.nanoTime() - start), at);
    }

    /** The glob to list: PATTERN, or with {@code --literal} the name PATTERN with its glob characters escaped. */
    String glob() {
        if (!literal) {
            return pattern;
        }
        StringBuilder glob = new StringBuilder(pattern.length() + 8);
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == '\\') {
                glob.append('\\');
            }
            glob.append(c);
        }
        return glob.toString();
    }

    /** The terminal's size, read with {@code stty size} from the terminal itself. */
    static final class Terminal {
        private Terminal() {
        }

        /** @return rows and columns; 24 by 80 where they cannot be read */
        static int[] size() {
            try {
                Process stty = new ProcessBuilder("stty", "size").redirectInput(ProcessBuilder.Redirect.from(
                        new java.io.File("/dev/tty"))).redirectErrorStream(true).start();
                if (stty.waitFor(1, TimeUnit.SECONDS) && stty.exitValue() == 0) {
                    String[] parts = new String(stty.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)
                            .trim().split("\\s+");
                    // A terminal that does not know its size (a pseudo-terminal nobody sized) says 0 0.
                    if (parts.length == 2 && Integer.parseInt(parts[0]) > 0 && Integer.parseInt(parts[1]) > 0) {
                        return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
                    }
                }
                stty.destroyForcibly();
            } catch (java.io.IOException | NumberFormatException e) {
                // Not a terminal stty can read: the default size.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new int[] {24, 80};
        }
    }
}
