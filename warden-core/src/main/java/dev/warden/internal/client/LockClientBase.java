package dev.warden.internal.client;

import dev.warden.DistributedMultiLock;
import dev.warden.IllegalLockStateException;
import dev.warden.Leadership;
import dev.warden.LeadershipListener;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockInfo;
import dev.warden.ReadWriteLockInfo;
import dev.warden.SemaphoreInfo;
import dev.warden.internal.base.Require;
import dev.warden.internal.inspect.LockListing;
import dev.warden.internal.inspect.NamePattern;
import dev.warden.internal.lead.Candidate;
import dev.warden.internal.lease.LockBase;
import dev.warden.internal.multi.MultiLock;
import dev.warden.internal.multi.TypedMultiLock;
import dev.warden.internal.wire.InFlight;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the clients of one deployment ({@link RedisLockClient}) and of a quorum ({@link QuorumLockClient}) share:
 * listing locks of each kind ({@link LockListing}) from the sources each of them has.
 */
abstract class LockClientBase implements LockClient {
    /**
     * The check before a new handle: its name, and an open client.
     *
     * @param closed whether the client is closed
     * @throws IllegalArgumentException if the name is blank or longer than {@link #MAX_NAME_LENGTH}
     * @throws IllegalStateException    if the client is closed
     */
    static void requireOpen(String name, boolean closed) {
        Require.lockName(name, MAX_NAME_LENGTH);
        if (closed) {
            throw new IllegalStateException("client is closed");
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(LockClientBase.class);

    /** The client's configuration, as given. */
    protected final LockConfig config;
    /** The candidates of elections made by this client and not closed yet. */
    private final Set<Candidate> candidates = ConcurrentHashMap.newKeySet();
    /** Set once the client closes; no candidate joins after. */
    private volatile boolean candidatesClosed;

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

    /** A candidate on the lock of that name; closing the client closes it ({@link #closeCandidates}). */
    @Override
    public Leadership leadership(String name, LeadershipListener listener) {
        Candidate candidate = new Candidate((LockBase) lock(name), listener, candidates::remove);
        candidates.add(candidate);
        // Added before the check, as closeCandidates sets the flag before its copy: one of them sees the other.
        if (candidatesClosed) {
            candidate.close();
            throw new IllegalLockStateException("client is closed");
        }
        candidate.join();
        return candidate;
    }

    /** Closes every candidate of this client, first thing when the client closes: their terms end as CLOSED. */
    protected void closeCandidates() {
        candidatesClosed = true;
        for (Candidate candidate : List.copyOf(candidates)) {
            try {
                candidate.close();
            } catch (RuntimeException e) {
                LOG.warn("closing the candidate of '{}' failed; its lease expires: {}", candidate.name(),
                        e.toString());
            }
        }
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
