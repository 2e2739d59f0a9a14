package dev.warden.cli;

import dev.warden.Lease;
import dev.warden.LeaseLostException;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code warden run NAME [--wait D] [--lease D] [--grace D] [--fair] [--read | --write | --permits N --of M] -- CMD
 * [ARGS...]}: runs a command while holding a lock, a half of a read-write lock, or permits of a semaphore, like
 * flock(1) across machines.
 */
@Command(name = "run", description = {"Run a command while holding a lock; the lock is released when it exits. "
        + "The command's stdin, stdout and stderr pass through, its exit code becomes warden's, and it finds the "
        + "fencing token in WARDEN_FENCING_TOKEN. If the lease is lost, the command gets SIGTERM, then SIGKILL "
        + "after --grace, and warden exits with 76. SIGINT and SIGTERM sent to warden are passed to the command."})
final class RunCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Mixin
    TopologyOptions topology;

    @Mixin
    ReplicaOptions replicas;

    @Mixin
    LeaseOptions leasing;

    @Parameters(index = "0", paramLabel = "NAME", description = "the lock's name: any characters, up to "
            + LockClient.MAX_NAME_LENGTH + "; * ? [ and \\ are plain characters in a name (see warden locks --literal)")
    String name;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "CMD",
            description = "the command and its arguments, after --")
    List<String> command;

    @Option(names = "--wait", paramLabel = "DURATION", defaultValue = "0", converter = Durations.class,
            description = "how long to wait for the lock, at most 24h (default: fail at once)")
    Duration wait;

    @Option(names = "--read", description = "take the read lock of the read-write lock NAME (shared with other "
            + "readers) instead of the lock NAME")
    boolean read;

    @Option(names = "--write", description = "take the write lock of the read-write lock NAME (excludes readers "
            + "and writers) instead of the lock NAME")
    boolean write;

    @Option(names = "--permits", paramLabel = "N", description = "take N permits of the semaphore NAME "
            + "(needs --of)")
    Integer permits;

    @Option(names = "--of", paramLabel = "M", description = "the semaphore's number of permits, which every user "
            + "of NAME must agree on; --of alone takes one permit")
    Integer of;

    @Spec
    CommandSpec spec;

    private SignalRelay signals;

    /** What this run takes, checked before anything connects; and its durations. */
    private String checkKind() {
        Durations.check(spec, "--wait", wait, Duration.ZERO, Durations.MAX);
        leasing.check();
        int kinds = (read ? 1 : 0) + (write ? 1 : 0) + (permits != null || of != null ? 1 : 0);
        if (kinds > 1) {
            throw new ParameterException(spec.commandLine(), "--read, --write and --permits/--of exclude each other");
        }
        if (permits != null && of == null) {
            throw new ParameterException(spec.commandLine(), "--permits needs --of, the semaphore's number of "
                    + "permits");
        }
        if (of != null && (of < 1 || of > LockClient.MAX_PERMITS)) {
            throw new ParameterException(spec.commandLine(), "--of must be between 1 and " + LockClient.MAX_PERMITS
                    + ": " + of);
        }
        int asked = permits == null ? 1 : permits;
        if (of != null && (asked < 1 || asked > of)) {
            throw new ParameterException(spec.commandLine(), "--permits must be between 1 and " + of + ": " + asked);
        }
        if (of != null) {
            return asked + " of the " + of + " permits of semaphore '" + name + "'";
        }
        return read ? "the read lock of '" + name + "'" : write ? "the write lock of '" + name + "'"
                : "lock '" + name + "'";
    }

    private Optional<Lease> acquire(LockClient client) throws InterruptedException {
        if (of != null) {
            return client.semaphore(name, of).tryAcquire(permits == null ? 1 : permits, wait);
        }
        if (read) {
            return client.readWriteLock(name).readLock().tryAcquire(wait);
        }
        if (write) {
            return client.readWriteLock(name).writeLock().tryAcquire(wait);
        }
        return client.lock(name).tryAcquire(wait);
    }

    @Override
    public Integer call() throws InterruptedException {
        String what = checkKind();
        LockConfig config = leasing.apply(replicas.apply(common.config(topology), common.timeout)).build();
        PrintWriter err = spec.commandLine().getErr();
        // Handlers first: a signal that arrives while waiting for the lock or starting the command is not lost.
        signals = SignalRelay.install(Thread.currentThread());
        try (LockClient client = LockClient.create(config)) {
            Optional<Lease> acquired;
            try {
                acquired = acquire(client);
            } catch (InterruptedException e) {
                err.println("warden: stopped by SIG" + signals.pending() + " while waiting for " + what);
                err.flush();
                return CommandProcess.exitCode(signals.pending());
            }
            String early = signals.acquired();
            if (acquired.isEmpty()) {
                err.println("warden: " + what + " held by others; not acquired within "
                        + Durations.format(wait));
                err.flush();
                return ExitCodes.NOT_ACQUIRED;
            }
            try (Lease held = acquired.get()) {
                return runHolding(held, early, err);
            }
        }
    }

    private int runHolding(Lease held, String early, PrintWriter err) throws InterruptedException {
        long fence;
        try {
            fence = held.fencingToken();
        } catch (LeaseLostException e) {
            err.println("warden: the lease of lock '" + name + "' was lost before the command started; "
                    + "the command was not run");
            err.flush();
            return ExitCodes.LEASE_LOST;
        }
        if (early != null) {
            err.println("warden: stopped by SIG" + early + " before the command started");
            err.flush();
            return CommandProcess.exitCode(early);
        }
        CommandProcess child;
        try {
            child = CommandProcess.start(command, Map.of("WARDEN_FENCING_TOKEN", Long.toString(fence),
                    "WARDEN_LOCK", name));
        } catch (IOException e) {
            return CommandProcess.cannotStart(command, e, err);
        }
        signals.started(child::signal);
        AtomicBoolean lost = new AtomicBoolean();
        held.onLost(() -> {
            lost.set(true);
            child.terminate(leasing.grace);
        });
        int code = child.waitFor();
        if (lost.get()) {
            err.println("warden: the lease of lock '" + name + "' was lost while the command ran; "
                    + "the command was terminated");
            err.flush();
            return ExitCodes.LEASE_LOST;
        }
        return code;
    }
}
