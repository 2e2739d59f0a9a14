package dev.warden.internal;

import dev.warden.LockClient;
import dev.warden.LockInfo;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

/**
 * What the clients of one deployment ({@link RedisLockClient}) and of a quorum ({@link QuorumLockClient}) share:
 * listing locks ({@link LockListing}) from the sources each of them has.
 */
abstract class LockClientBase implements LockClient {
    @Override
    public List<LockInfo> locks(String pattern, int limit) {
        return LockListing.list(pattern, limit, this::start, listingStallNanos());
    }

    @Override
    public CompletableFuture<List<LockInfo>> locksAsync(String pattern, int limit) {
        return LockListing.listAsync(pattern, limit, this::start, callbackExecutor());
    }

    /** Starts a listing, unless the client is closed ({@link CallerStateException}). */
    private LockListing start(NamePattern glob, int limit) {
        inFlight().requireOpen();
        return listing(glob, limit);
    }

    /** Starts a listing whose arguments were checked, of an open client. */
    abstract LockListing listing(NamePattern glob, int limit);

    /** @return the client's requests in flight, which a listing's requests count in */
    abstract InFlight inFlight();

    /** @return how long a blocking listing waits for Redis's next answer: as long as for any one command */
    abstract long listingStallNanos();

    /** @return the executor that completes the futures of the async methods, off the I/O threads */
    abstract ExecutorService callbackExecutor();
}
