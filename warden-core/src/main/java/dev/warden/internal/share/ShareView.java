package dev.warden.internal.share;

import dev.warden.DistributedLock;
import dev.warden.IllegalLockStateException;
import dev.warden.Lease;
import dev.warden.LockInfo;
import dev.warden.internal.base.Events;
import dev.warden.internal.lease.LockBase;
import dev.warden.internal.lease.ThreadHolds;
import dev.warden.internal.script.ShareScripts;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A fixed number of permits of a shared lock as a {@link DistributedLock}: a read-write lock's read half (one
 * permit) or write half (all of them), or one request size of a semaphore. Stateless apart from its
 * {@link java.util.concurrent.locks.Lock} view.
 */
final class ShareView extends LockBase {
    /** What the view is of its shared lock. */
    enum Role {
        /** A read-write lock's shared half. */
        READ("read lock", ShareScripts.Holders.PART),
        /** A read-write lock's exclusive half. */
        WRITE("write lock", ShareScripts.Holders.WHOLE),
        /** Permits of a semaphore. */
        PERMITS("permits", ShareScripts.Holders.ALL);

        final String label;
        final ShareScripts.Holders holders;

        Role(String label, ShareScripts.Holders holders) {
            this.label = label;
            this.holders = holders;
        }
    }

    private final ShareLock share;
    private final long permits;
    private final Role role;

    ShareView(ShareLock share, long permits, Role role) {
        this.share = share;
        this.permits = permits;
        this.role = role;
    }

    @Override
    public String name() {
        return share.name();
    }

    @Override
    public CompletableFuture<Optional<Lease>> start(long waitNanos, long leaseMillis, boolean renewing,
                                             Events.AcquireWatch watch) {
        Thread caller = Thread.currentThread();
        String companion = "";
        ThreadShares shares = share.context().threadShares();
        if (role == Role.WRITE && shares.held(share.keys(), caller, false) != null) {
            throw new IllegalLockStateException(describe("acquire") + ": this thread holds the read lock; an upgrade "
                    + "would wait for itself. Release the read lock first");
        } else if (role == Role.READ) {
            ShareLease writer = shares.held(share.keys(), caller, true);
            companion = writer == null ? "" : writer.token();
        }
        return share.start(permits, waitNanos, leaseMillis, renewing, companion, caller, watch);
    }

    /** Null: a read-write lock's halves check by their own rules ({@link ThreadShares}), permits not at all. */
    @Override
    public ShareContext context() {
        return share.context();
    }

    @Override
    public ThreadHolds threadHolds() {
        return null;
    }

    @Override
    public CompletableFuture<Boolean> abandon(Lease lease) {
        return ((ShareLease) lease).abandon();
    }

    @Override
    public String describe(String operation) {
        return share.describe(operation + " (" + role.label + ")");
    }

    /** Held: by a writer for the write half, by a reader for the read half, by anyone for permits. */
    @Override
    public CompletableFuture<LockInfo> inspectRequest() {
        return share.inspectRequest((state, identities) -> switch (role) {
            case READ -> state.view(name(), state.holders() - state.whole(), state.partOrigins(), identities);
            case WRITE -> state.view(name(), state.whole(), state.wholeOrigins(), identities);
            case PERMITS -> state.view(name(), state.holders(), state.holding(), identities);
        });
    }

    @Override
    public CompletableFuture<OptionalLong> forceReleaseRequest() {
        return share.forceReleaseRequest(role.holders);
    }

    @Override
    public DistributedLock withReplicaAcks(int replicas, Duration timeout) {
        return new ShareView(share.withReplicas(replicas, timeout), permits, role);
    }

    @Override
    public String toString() {
        return "DistributedLock{" + name() + ", " + role.label + "}";
    }
}
