package dev.warden.internal.share;

import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.ReadWriteLockInfo;
import dev.warden.internal.script.ShareKeys;
import dev.warden.internal.script.ShareScripts;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/** A read-write lock of one client: two {@link ShareView}s of one {@link ShareLock}. */
public final class RedisReadWriteLock implements DistributedReadWriteLock {
    private final ShareLock share;
    private final ShareView read;
    private final ShareView write;

    public RedisReadWriteLock(ShareContext context, String name) {
        this.share = new ShareLock(context, name, ShareKeys.Kind.READ_WRITE, ShareLock.READ_WRITE_CAPACITY);
        this.read = new ShareView(share, 1, ShareView.Role.READ);
        this.write = new ShareView(share, ShareLock.READ_WRITE_CAPACITY, ShareView.Role.WRITE);
    }

    @Override
    public String name() {
        return share.name();
    }

    @Override
    public DistributedLock readLock() {
        return read;
    }

    @Override
    public DistributedLock writeLock() {
        return write;
    }

    @Override
    public OptionalLong forceRelease() {
        return share.call(() -> share.forceReleaseRequest(ShareScripts.Holders.ALL), "forced release");
    }

    @Override
    public CompletableFuture<OptionalLong> forceReleaseAsync() {
        return share.callAsync(() -> share.forceReleaseRequest(ShareScripts.Holders.ALL), "forced release");
    }

    @Override
    public ReadWriteLockInfo inspect() {
        return share.call(this::inspectRequest, "inspect");
    }

    @Override
    public CompletableFuture<ReadWriteLockInfo> inspectAsync() {
        return share.callAsync(this::inspectRequest, "inspect");
    }

    private CompletableFuture<ReadWriteLockInfo> inspectRequest() {
        return share.inspectRequest((state, identities) -> state.readWrite(name(), identities));
    }

    @Override
    public String toString() {
        return "DistributedReadWriteLock{" + name() + "}";
    }
}
