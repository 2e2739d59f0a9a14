package dev.warden.cli;

import dev.warden.LockClient;
import dev.warden.SemaphoreInfo;
import java.io.PrintWriter;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code warden release NAME --force}: removes whoever holds the lock NAME, and the readers and writer of the
 * read-write lock NAME and the holders of the semaphore NAME, where those are in use.
 */
@Command(name = "release", description = "Release a lock whoever holds it (needs --force), and the readers and "
        + "writer of the read-write lock NAME and the holders of the semaphore NAME, where those are held. The "
        + "holders' leases are lost at their next renewal; the fencing counters are kept.")
final class ReleaseCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Mixin
    TopologyOptions topology;

    @Parameters(index = "0", paramLabel = "NAME", description = "the lock's name, as given to run or the "
            + "library: every character is plain (no glob)")
    String name;

    @Option(names = "--force", description = "required: confirms that another process's lock may be removed")
    boolean force;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (!force) {
            throw new IllegalArgumentException("release removes whoever holds '" + name + "': add --force to confirm");
        }
        try (LockClient client = LockClient.create(common.config(topology).build())) {
            var out = spec.commandLine().getOut();
            boolean removedAny = report(out, "lock", "the holder", client.lock(name).forceRelease());
            // A quorum has locks only.
            if (!topology.quorum) {
                removedAny |= report(out, "read-write lock", "its readers and writer",
                        client.readWriteLock(name).forceRelease());
                // The permits a handle names do not matter to a forced release; the stored number is shown.
                SemaphoreInfo semaphore = client.semaphore(name, 1).inspect();
                if (semaphore.permits() > 0) {
                    removedAny |= report(out, "semaphore", semaphore.holders() == 1 ? "its holder" : "its " + semaphore.holders() + " holders",
                            client.semaphore(name, semaphore.permits()).forceRelease());
                }
            }
            if (!removedAny) {
                out.println("'" + name + "' was not held (no lock, read-write lock or semaphore of that name); "
                        + "nothing removed");
            }
            out.flush();
            return ExitCodes.OK;
        }
    }

    /** Prints what a forced release removed, if anything; returns whether it removed a holder. */
    private boolean report(PrintWriter out, String kind, String who, OptionalLong removed) {
        if (removed.isEmpty()) {
            return false;
        }
        long fence = removed.getAsLong();
        String token = kind.equals("lock") ? " with fencing token " + fence
                : fence > 0 ? " (highest fencing token " + fence + ")" : " (no writer's fencing token known)";
        out.println("released " + kind + " '" + name + "': removed " + who + token);
        return true;
    }
}
