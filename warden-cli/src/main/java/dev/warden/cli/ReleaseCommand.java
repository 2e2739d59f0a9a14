package dev.warden.cli;

import dev.warden.LockClient;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code warden release NAME --force}: removes a lock whoever holds it. */
@Command(name = "release", description = "Release a lock whoever holds it (needs --force). The holder's lease is "
        + "lost at its next renewal; the fencing counter is kept.")
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
            OptionalLong removed = client.lock(name).forceRelease();
            var out = spec.commandLine().getOut();
            if (removed.isPresent()) {
                out.println("released lock '" + name + "': removed the holder with fencing token "
                        + removed.getAsLong());
            } else {
                out.println("lock '" + name + "' was not held; nothing removed");
            }
            out.flush();
            return ExitCodes.OK;
        }
    }
}
