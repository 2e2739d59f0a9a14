package dev.warden.cli;

import dev.warden.LockClient;
import dev.warden.LockInfo;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code warden inspect NAME}: whether a lock is held, by whom and since when, for how long still, its last fencing
 * token, and its waiters.
 */
@Command(name = "inspect", description = "Show whether a lock is held, its remaining lease and last fencing token.")
final class InspectCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Parameters(index = "0", paramLabel = "NAME", description = "the lock's name")
    String name;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        try (LockClient client = LockClient.create(common.config().build())) {
            LockInfo info = client.lock(name).inspect();
            var out = spec.commandLine().getOut();
            out.println("lock:          " + info.name());
            out.println("state:         " + (info.held() ? "held" : "free"));
            out.println("holder:        " + info.holder().orElse("-"));
            out.println("held for:      " + info.heldFor().map(LocksView::duration).orElse("-"));
            out.println("lease left:    " + (info.held() ? Durations.format(info.remainingLease()) : "-"));
            out.println("last fence:    " + (info.lastFencingToken() == 0 ? "-" : info.lastFencingToken()));
            out.println("waiters:       " + info.waiters());
            out.println("longest wait:  " + info.longestWait().map(LocksView::duration).orElse("-"));
            out.flush();
            return ExitCodes.OK;
        }
    }
}
