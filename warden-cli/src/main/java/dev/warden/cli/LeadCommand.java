package dev.warden.cli;

import dev.warden.Leadership;
import dev.warden.LeadershipListener;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.Term;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code warden lead NAME [--wait D] [--lease D] [--grace D] [--fair] [--rejoin] -- CMD [ARGS...]}: a candidate of
 * the election NAME ({@link LockClient#leadership}) that runs a command only while it leads, the epoch of its term
 * in {@code WARDEN_EPOCH}.
 *
 * <p>A term ends when the lease is lost (the command is terminated as {@code warden run} terminates it), and when the
 * command exits on its own (the candidate steps down). Without {@code --rejoin}, the first term is the only one: warden
 * exits with the command's exit code, or with {@link ExitCodes#LEASE_LOST} if the term was lost while it ran. With
 * {@code --rejoin}, the candidate waits to lead again after either, and runs the command again, at most once a
 * second, until a signal stops it.
 */
@Command(name = "lead", description = {"Run a command only while this process leads the election NAME: wait in the "
        + "queue of the lock NAME with the other candidates, run the command once elected, with the term's epoch (the "
        + "lease's fencing token, higher for every later leader) in WARDEN_EPOCH and WARDEN_FENCING_TOKEN and NAME in "
        + "WARDEN_LOCK. Streams, exit code and signals are as with 'warden run': SIGINT and SIGTERM sent to warden go "
        + "to the command, and warden then leaves the election.",
        "If the lease is lost (a Redis failure, 'warden release --force'), the command gets SIGTERM, then SIGKILL "
                + "after --grace. Without --rejoin, warden then exits with 76; if the command exits on its own, warden "
                + "steps down and exits with the command's exit code.",
        "With --rejoin, warden waits to lead again after either, and runs the command again in the next term (at "
                + "most once a second), until SIGINT or SIGTERM."})
final class LeadCommand implements Callable<Integer> {
    /** The least time between two starts of the command with {@code --rejoin}: a command that fails at once. */
    static final Duration RESTART_INTERVAL = Duration.ofSeconds(1);
    /** How long a candidate waits without {@code --wait}: as long as it takes. */
    private static final Duration FOREVER = Duration.ofNanos(Long.MAX_VALUE);

    @Mixin
    CommonOptions common;

    @Mixin
    TopologyOptions topology;

    @Mixin
    ReplicaOptions replicas;

    @Mixin
    LeaseOptions leasing;

    @Parameters(index = "0", paramLabel = "NAME", description = "the election's name, which is its lock's: any "
            + "characters, up to " + LockClient.MAX_NAME_LENGTH + "; * ? [ and \\ are plain characters in a name")
    String name;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "CMD",
            description = "the command and its arguments, after --")
    List<String> command;

    @Option(names = "--wait", paramLabel = "DURATION", converter = Durations.class,
            description = "give up (exit 75) if not elected within this, at most 24h; only the first election "
                    + "(default: wait as long as it takes)")
    Duration wait;

    @Option(names = "--rejoin", description = "after a term ends (the lease lost, or the command exited), wait to "
            + "lead again and run the command again, until SIGINT or SIGTERM")
    boolean rejoin;

    @Spec
    CommandSpec spec;

    private SignalRelay signals;

    /** Checks the durations, before anything connects. */
    void check() {
        if (wait != null) {
            Durations.check(spec, "--wait", wait, Durations.MIN_LEASE, Durations.MAX);
        }
        leasing.check();
    }

    @Override
    public Integer call() throws InterruptedException {
        check();
        LockConfig config = leasing.apply(replicas.apply(common.config(topology), common.timeout)).build();
        PrintWriter err = spec.commandLine().getErr();
        // Handlers first: a signal that arrives while waiting to lead or starting the command is not lost.
        signals = SignalRelay.install(Thread.currentThread());
        Terms terms = new Terms(name, err);
        try (LockClient client = LockClient.create(config); Leadership candidate = client.leadership(name, terms)) {
            return lead(candidate, terms, err);
        }
    }

    /** Waits to lead and runs the command, once or (with {@code --rejoin}) in each term; returns warden's exit code. */
    private int lead(Leadership candidate, Terms terms, PrintWriter err) throws InterruptedException {
        Duration first = wait == null ? FOREVER : wait;
        long lastStart = 0;
        boolean started = false;
        while (true) {
            Optional<Term> elected;
            try {
                if (started) {
                    // A command that fails at once is not started again and again as fast as Redis answers.
                    long since = System.nanoTime() - lastStart;
                    TimeUnit.NANOSECONDS.sleep(Math.max(0, RESTART_INTERVAL.toNanos() - since));
                }
                elected = candidate.awaitLeadership(first);
            } catch (InterruptedException e) {
                String signal = signals.pending();
                if (signal == null) {
                    throw e;
                }
                say(err, "stopped by SIG" + signal + " while waiting to lead '" + name + "'");
                return CommandProcess.exitCode(signal);
            }
            first = FOREVER;
            if (elected.isEmpty()) {
                Throwable failure = terms.failure();
                if (failure != null) {
                    say(err, "not elected within " + Durations.format(wait) + ": cannot join the election '" + name
                            + "' (" + Terms.firstLine(failure) + ")");
                    return ExitCodes.REDIS_UNAVAILABLE;
                }
                say(err, "'" + name + "' is led by another; not elected within " + Durations.format(wait));
                return ExitCodes.NOT_ACQUIRED;
            }
            Term term = elected.get();
            String early = signals.acquired();
            if (early != null) {
                say(err, "stopped by SIG" + early + " before the command started");
                return CommandProcess.exitCode(early);
            }
            CompletableFuture<Leadership.Revocation> end = terms.end(term);
            if (end.isDone() || !candidate.term().equals(Optional.of(term))) {
                terms.forget(term);
                String signal = rejoin ? signals.ended() : null;
                say(err, "the lease of '" + name + "' (epoch " + term.epoch() + ") was lost before the command "
                        + "started; the command was not run" + (rejoin && signal == null ? "; waiting to lead again"
                        : ""));
                if (!rejoin) {
                    return ExitCodes.LEASE_LOST;
                }
                if (signal != null) {
                    say(err, "stopped by SIG" + signal + " before the command started");
                    return CommandProcess.exitCode(signal);
                }
                continue;
            }
            CommandProcess child;
            try {
                child = CommandProcess.start(command, Map.of("WARDEN_EPOCH", Long.toString(term.epoch()),
                        "WARDEN_FENCING_TOKEN", Long.toString(term.epoch()), "WARDEN_LOCK", name));
            } catch (IOException e) {
                // Not runnable now is not runnable in the next term either: warden leaves the election.
                return CommandProcess.cannotStart(command, e, err);
            }
            started = true;
            lastStart = System.nanoTime();
            signals.started(child::signal);
            // The command's exit, or the term's end, whichever comes first; signals go to the command meanwhile.
            CompletableFuture.anyOf(child.onExit(), end).join();
            boolean lost = end.isDone();
            boolean terminated = lost && !child.exited();
            if (terminated) {
                child.terminate(leasing.grace);
            }
            int code = child.waitFor();
            terms.forget(term);
            String signalled = rejoin ? signals.ended() : null;
            boolean again = rejoin && signalled == null;
            if (lost) {
                say(err, "the lease of '" + name + "' (epoch " + term.epoch() + ") was lost while the command ran"
                        + (terminated ? "; the command was terminated" : "")
                        + (again ? "; waiting to lead again" : ""));
                if (!rejoin) {
                    return ExitCodes.LEASE_LOST;
                }
            }
            if (!again) {
                // Leaving the election (the candidate's close) ends the term and elects the next candidate.
                return code;
            }
            if (!lost) {
                candidate.stepDown();
                say(err, "the command exited with " + code + "; stepped down as leader of '" + name + "' (epoch "
                        + term.epoch() + "), waiting to lead again");
            }
        }
    }

    private static void say(PrintWriter err, String line) {
        err.println("warden: " + line);
        err.flush();
    }

    /**
     * What the candidate hears: the end of each term, as a future the command's run waits on beside the command; and
     * a failure to join the election, said once until the next election, and kept for a {@code --wait} that runs
     * out.
     */
    static final class Terms implements LeadershipListener {
        private final String name;
        private final PrintWriter err;
        private final Map<Long, CompletableFuture<Leadership.Revocation>> ends = new ConcurrentHashMap<>();
        /** The last failure to join since the last election, or null. Guarded by this. */
        private Throwable failing;

        Terms(String name, PrintWriter err) {
            this.name = name;
            this.err = err;
        }

        /** @return completes with why {@code term} ended, when it has */
        CompletableFuture<Leadership.Revocation> end(Term term) {
            return ends.computeIfAbsent(term.epoch(), epoch -> new CompletableFuture<>());
        }

        /** Forgets {@code term}, whose end is not waited for any more. */
        void forget(Term term) {
            ends.remove(term.epoch());
        }

        /** @return the last failure to join the election since the last election, or null */
        synchronized Throwable failure() {
            return failing;
        }

        @Override
        public void elected(Term term) {
            synchronized (this) {
                failing = null;
            }
            // Terms that ended before anyone waited for them (elected and lost in between) are not kept.
            ends.keySet().removeIf(epoch -> epoch < term.epoch());
        }

        @Override
        public void revoked(Term term, Leadership.Revocation why) {
            end(term).complete(why);
        }

        @Override
        public void failed(Throwable error, Duration retryIn) {
            boolean first;
            synchronized (this) {
                first = failing == null;
                failing = error;
            }
            if (first) {
                say(err, "cannot join the election '" + name + "' (" + firstLine(error) + "); trying again every "
                        + Durations.format(retryIn));
            }
        }

        static String firstLine(Throwable error) {
            String message = error.getMessage() == null ? error.toString() : error.getMessage();
            return message.lines().findFirst().orElse(message);
        }
    }
}
