package dev.warden.cli;

import dev.warden.LockClient;
import dev.warden.SemaphoreInfo;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code warden resize NAME PERMITS}: changes the number of permits of the semaphore NAME while its leases are held
 * ({@link dev.warden.DistributedSemaphore#resize}).
 */
@Command(name = "resize", description = "Change the number of permits of the semaphore NAME, while its permits are "
        + "held: a raise lends the new permits to waiters at once; after a lowering, holders keep their permits and "
        + "none is lent until fewer than PERMITS are in use. Clients that name the old number fail until they name "
        + "the new one.")
final class ResizeCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Option(names = "--cluster", description = "--redis names a Redis Cluster: one or more seed URIs, comma-separated")
    boolean cluster;

    @Parameters(index = "0", paramLabel = "NAME", description = "the semaphore's name: every character is plain "
            + "(no glob)")
    String name;

    @Parameters(index = "1", paramLabel = "PERMITS", description = "the new number of permits, 1 or more")
    int permits;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (permits < 1) {
            throw new IllegalArgumentException("PERMITS must be at least 1: " + permits);
        }
        // A quorum has locks only: no --quorum here.
        TopologyOptions topology = new TopologyOptions();
        topology.cluster = cluster;
        try (LockClient client = LockClient.create(common.config(topology).build())) {
            var out = spec.commandLine().getOut();
            // The permits a handle names decide nothing here: the stored number is read, then changed from it. A
            // client that changed it in between makes the resize fail, naming both numbers.
            SemaphoreInfo before = client.semaphore(name, 1).inspect();
            int from = before.permits() > 0 ? before.permits() : permits;
            client.semaphore(name, from).resize(permits);
            if (before.permits() == 0) {
                out.println("semaphore '" + name + "' was not in use; it now has " + permits + " permits");
            } else {
                int used = before.permits() - before.available();
                out.println("resized semaphore '" + name + "' from " + before.permits() + " to " + permits
                        + " permits (" + before.holders() + (before.holders() == 1 ? " holder" : " holders")
                        + (used > permits ? ", above the new number: none is lent until fewer than " + permits
                        + " are in use" : "") + ")");
            }
            out.flush();
            return ExitCodes.OK;
        }
    }
}
