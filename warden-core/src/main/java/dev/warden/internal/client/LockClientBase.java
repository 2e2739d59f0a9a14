package dev.warden.internal.client;

import java.util.Collection;
import dev.warden.internal.multi.TypedMultiLock;
import dev.warden.internal.multi.MultiLock;
import dev.warden.LockConfig;
import dev.warden.DistributedMultiLock;
import dev.warden.IllegalLockStateException;
import dev.warden.LockClient;
import dev.warden.LockInfo;
import dev.warden.ReadWriteLockInfo;
import dev.warden.SemaphoreInfo;
import dev.warden.internal.inspect.LockListing;
import dev.warden.internal.inspect.NamePattern;
import dev.warden.internal.wire.InFlight;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.BiFunction;

/**
 * What the clients of one deployment ({@link RedisLockClient}) and of a quorum ({@link QuorumLockClient}) share:
 * listing locks of each kind ({@link LockListing}) from the sources each of them has.
 */
abstract class LockClientBase implements LockClient {
    /** The client's configuration, as given. */
    protected final LockConfig config;

    LockClientBase(LockConfig config) {
        this.config = config;
    }

    @Override
    public LockConfig config() {
        return config;
    }

    @Override
    public DistributedMultiLock multiLock(Collection<String> names) {
        return new TypedMultiLock(MultiLock.of(this, names));
    }

    @Override
    public List<LockInfo> locks(String pattern, int limit) {
        return LockListing.list(pattern, limit, starter(LockListing.LOCKS), listingStallNanos());
    }

    @Override
    public CompletableFuture<List<LockInfo>> locksAsync(String pattern, int limit) {
        return LockListing.listAsync(pattern, limit, starter(LockListing.LOCKS), callbackExecutor());
    }

    @Override
    public List<ReadWriteLockInfo> readWriteLocks(String pattern, int limit) {
        return LockListing.list(pattern, limit, starter(LockListing.READ_WRITE_LOCKS), listingStallNanos());
    }

    @Override
    public CompletableFuture<List<ReadWriteLockInfo>> readWriteLocksAsync(String pattern, int limit) {
        return LockListing.listAsync(pattern, limit, starter(LockListing.READ_WRITE_LOCKS), callbackExecutor());
    }

    @Override
    public List<SemaphoreInfo> semaphores(String pattern, int limit) {
        return LockListing.list(pattern, limit, starter(LockListing.SEMAPHORES), listingStallNanos());
    }

    @Override
    public CompletableFuture<List<SemaphoreInfo>> semaphoresAsync(String pattern, int limit) {
        return LockListing.listAsync(pattern, limit, starter(LockListing.SEMAPHORES), callbackExecutor());
    }

    /** Starts listings of a kind, unless the client is closed ({@link IllegalLockStateException}). */
    private <T> BiFunction<NamePattern, Integer, LockListing<T>> starter(LockListing.Kind<T> kind) {
        return (glob, limit) -> {
            inFlight().requireOpen();
            return listing(kind, glob, limit);
        };
    }

    /** Starts a listing of a kind whose arguments were checked, of an open client. */
    abstract <T> LockListing<T> listing(LockListing.Kind<T> kind, NamePattern glob, int limit);

    /** @return the client's requests in flight, which a listing's requests count in */
    abstract InFlight inFlight();

    /** @return how long a blocking listing waits for Redis's next answer: as long as for any one command */
    abstract long listingStallNanos();

    /** @return the executor that completes the futures of the async methods, off the I/O threads */
    abstract ExecutorService callbackExecutor();
}
