package dev.warden.cli;

import dev.warden.Identity;
import dev.warden.LockClient;
import dev.warden.LockInfo;
import dev.warden.ReadWriteLockInfo;
import dev.warden.SemaphoreInfo;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code warden inspect NAME}: whether a lock is held, by whom and since when, for how long still, its last fencing
 * token, and its waiters, and the same read as an election ({@code warden lead}); and the read-write lock and
 * semaphore of that name, where they are in use.
 */
@Command(name = "inspect", description = "Show whether a lock is held, by whom and since when, its remaining lease, "
        + "last fencing token and waiters, and the same read as the election NAME of 'warden lead' (the leader, the "
        + "epoch of its term, the candidates); and the readers and writer of the read-write lock NAME, and the "
        + "permits of the semaphore NAME, where those are in use.")
final class InspectCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Mixin
    TopologyOptions topology;

    @Parameters(index = "0", paramLabel = "NAME", description = "the lock's name, as given to run or the "
            + "library: every character is plain (no glob)")
    String name;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        try (LockClient client = LockClient.create(common.config(topology).build())) {
            LockInfo info = client.lock(name).inspect();
            var out = spec.commandLine().getOut();
            ReadWriteLockInfo readWrite = topology.quorum ? null : client.readWriteLock(name).inspect();
            // The permits asked for do not matter to inspect: it reports the number stored with the semaphore.
            SemaphoreInfo semaphore = topology.quorum ? null : client.semaphore(name, 1).inspect();
            boolean readWriteInUse = readWrite != null && (readWrite.writeLocked() || readWrite.readers() > 0
                    || readWrite.waiters() > 0 || readWrite.lastFencingToken() > 0);
            boolean semaphoreInUse = semaphore != null && semaphore.permits() > 0;
            boolean lockInUse = info.held() || info.waiters() > 0 || info.lastFencingToken() > 0;
            // The plain lock's section is shown if it is in use, or if nothing of that name is: a read-write lock
            // or a semaphore alone is not preceded by a lock that says "free".
            List<Runnable> sections = new ArrayList<>();
            if (lockInUse || (!readWriteInUse && !semaphoreInUse)) {
                sections.add(() -> lockSection(out, info));
            }
            if (readWriteInUse) {
                sections.add(() -> readWriteSection(out, readWrite));
            }
            if (semaphoreInUse) {
                sections.add(() -> semaphoreSection(out, semaphore));
            }
            for (int i = 0; i < sections.size(); i++) {
                if (i > 0) {
                    out.println();
                }
                sections.get(i).run();
            }
            out.flush();
            return ExitCodes.OK;
        }
    }

    private static void lockSection(PrintWriter out, LockInfo info) {
        out.println("lock:          " + info.name());
        out.println("state:         " + (info.held() ? "held" : "free"));
        out.println("held by:       " + info.holderIdentity().map(Identity::describe).map(LocksView::printable)
                .orElse("-"));
        out.println("holder:        " + info.holder().orElse("-"));
        out.println("held for:      " + info.heldFor().map(LocksView::duration).orElse("-"));
        out.println("lease left:    " + (info.held() ? Durations.format(info.remainingLease()) : "-"));
        out.println("last fence:    " + (info.lastFencingToken() == 0 ? "-" : info.lastFencingToken()));
        out.println("waiters:       " + info.waiters());
        list(out, info.waiting(), info.waiters());
        out.println("longest wait:  " + info.longestWait().map(LocksView::duration).orElse("-"));
        out.println("election:      " + LocksView.election(info));
    }

    private static void readWriteSection(PrintWriter out, ReadWriteLockInfo readWrite) {
        out.println("read-write:    " + (readWrite.writeLocked() ? "write-locked" : "")
                + (readWrite.writeLocked() && readWrite.readers() > 0 ? ", " : "")
                + (readWrite.readers() > 0 ? "read-locked by " + readWrite.readers() + " readers" : "")
                + (readWrite.writeLocked() || readWrite.readers() > 0 ? "" : "free"));
        out.println("writer:        " + readWrite.writer().map(Identity::describe)
                .map(LocksView::printable).orElse("-"));
        out.println("readers:       " + readWrite.readers());
        list(out, readWrite.reading(), readWrite.readers());
        out.println("lease left:    " + (readWrite.writeLocked() || readWrite.readers() > 0
                ? Durations.format(readWrite.longestLease()) : "-"));
        out.println("last fence:    " + (readWrite.lastFencingToken() == 0 ? "-"
                : readWrite.lastFencingToken()));
        out.println("waiters:       " + readWrite.waiters());
        list(out, readWrite.waiting(), readWrite.waiters());
        out.println("longest wait:  " + readWrite.longestWait().map(LocksView::duration).orElse("-"));
    }

    private static void semaphoreSection(PrintWriter out, SemaphoreInfo semaphore) {
        out.println("semaphore:     " + semaphore.available() + " of " + semaphore.permits()
                + " permits free, " + semaphore.holders() + (semaphore.holders() == 1 ? " holder"
                : " holders"));
        list(out, semaphore.holding(), semaphore.holders());
        out.println("lease left:    " + (semaphore.holders() > 0
                ? Durations.format(semaphore.longestLease()) : "-"));
        out.println("last fence:    " + (semaphore.lastFencingToken() == 0 ? "-"
                : semaphore.lastFencingToken()));
        out.println("waiters:       " + semaphore.waiters());
        list(out, semaphore.waiting(), semaphore.waiters());
        out.println("longest wait:  " + semaphore.longestWait().map(LocksView::duration).orElse("-"));
    }

    /** Prints who holds or waits, numbered, and how many more of {@code total} there are. */
    private static void list(PrintWriter out, List<Identity> who, int total) {
        for (int i = 0; i < who.size(); i++) {
            out.println(String.format(Locale.ROOT, "  %-12s %s", (i + 1) + ".", LocksView.printable(who.get(i)
                    .describe())));
        }
        if (total > who.size() && !who.isEmpty()) {
            out.println("  ...          and " + (total - who.size()) + " more");
        }
    }
}
