package dev.warden.internal.inspect;

import dev.warden.IllegalLockStateException;
import dev.warden.LockConnectionException;
import dev.warden.LockException;
import dev.warden.LockInfo;
import dev.warden.LockTimeoutException;
import dev.warden.ReadWriteLockInfo;
import dev.warden.SemaphoreInfo;
import dev.warden.internal.base.Errors;
import dev.warden.internal.base.Futures;
import dev.warden.internal.base.Require;
import dev.warden.internal.script.LockKeys;
import dev.warden.internal.script.ShareKeys;
import dev.warden.internal.wire.InFlight;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One listing of locks of one kind ({@link Kind}: the mutexes of {@link dev.warden.LockClient#locks(String, int)},
 * the read-write locks and semaphores of {@code readWriteLocks} and {@code semaphores}): {@code SCAN} every master
 * of every source with {@code MATCH} and a bounded {@code COUNT} ({@value #SCAN_COUNT}), never {@code KEYS}; read
 * each key back into a lock name ({@link LockKeys#parse}), keep the keys of the kind whose names match the glob,
 * and inspect each with the kind's inspect script on its source; keep the locks that are held or have waiters, each
 * once, up to the limit.
 *
 * <p>Each master is read a page at a time, its inspections pipelined but at most {@value #WINDOW} in flight, the next
 * page's {@code SCAN} sent once the page's last inspections are on their way. So a listing has at most that many
 * commands waiting at Redis per master, and Redis runs it as many short commands with other clients' commands in
 * between, however many locks there are; the listing's memory holds a page at most, besides what it returns.
 * Every request is counted in the client's {@link InFlight}: a client that closes fails the listing instead of
 * leaving it hanging.
 *
 * <p>A source is one deployment (a server, a Sentinel-named master, a cluster) or one server of a quorum. Where
 * sources are a quorum's servers, a lock that one server shows held or waited for is then read from all of them
 * ({@code confirm}), once per name, and a listing goes on without up to {@code tolerated} servers that fail. What
 * a listing keeps in memory is the locks it returns and the names of the locks some source showed held or waited
 * for, not the free locks' fencing counters it passes.
 */
public final class LockListing<T> {
    private static final Logger LOG = LoggerFactory.getLogger(LockListing.class);
    /**
     * Keys per {@code SCAN}: Redis's time per call grows with it (it visits about this many hash buckets and
     * answers with their keys), and so does a page's batch of inspections. On the 2-core test machine a call of
     * 1,000 took Redis 1.1-1.5 ms over 120,000 lock keys; 500 keeps one under a millisecond, and the round trips
     * it adds go out with the pages' inspections.
     */
    static final int SCAN_COUNT = 500;
    /**
     * Inspections in flight per master at most: Redis runs the commands a client has sent, as many as it reads at
     * once, before it turns to other clients; 64 inspections take it about a millisecond.
     */
    static final int WINDOW = 64;

    /**
     * One deployment, or one server of a quorum.
     *
     * @param masters completes with the commands of each master to scan, or exceptionally if the source cannot be
     *                reached
     * @param inspect reads the state of the named lock on this source; not counted in flight (the listing counts)
     */
    public record Source<T>(CompletableFuture<List<RedisClusterAsyncCommands<String, String>>> masters,
                     Function<String, CompletableFuture<T>> inspect) {
    }

    /**
     * What a listing lists: the locks of one kind, told apart by what their keys carry after the name's hash tag.
     *
     * @param suffix what a key of this kind carries after the tag: "" for a mutex's lock key ({@link LockKeys}),
     *               a {@link ShareKeys.Kind}'s suffix for a shared lock's state
     * @param listed whether a lock read belongs in the listing: held, or waited for
     * @param name   the name of a lock read
     */
    public record Kind<T>(String suffix, Predicate<T> listed, Function<T, String> name) {
    }

    /** Mutexes. */
    public static final Kind<LockInfo> LOCKS = new Kind<>("", info -> info.held() || info.waiters() > 0,
                                                          LockInfo::name);
    /** Read-write locks. */
    public static final Kind<ReadWriteLockInfo> READ_WRITE_LOCKS = new Kind<>(ShareKeys.Kind.READ_WRITE.suffix,
            info -> info.writeLocked() || info.readers() > 0 || info.waiters() > 0, ReadWriteLockInfo::name);
    /** Semaphores. */
    public static final Kind<SemaphoreInfo> SEMAPHORES = new Kind<>(ShareKeys.Kind.SEMAPHORE.suffix,
            info -> info.holders() > 0 || info.waiters() > 0, SemaphoreInfo::name);

    private final String prefix;
    private final NamePattern pattern;
    private final int limit;
    private final int tolerated;
    private final int sources;
    private final InFlight inFlight;
    private final Kind<T> kind;
    private final Function<String, CompletableFuture<T>> confirm;
    private final KeyScanArgs args;
    /** The names some source showed held or waited for: each is confirmed and kept once. */
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    private final List<T> found = new ArrayList<>();
    /** Requests sent whose callbacks have not finished, plus the sources not resolved yet. */
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicInteger failedSources = new AtomicInteger();
    private final CompletableFuture<List<T>> result = new CompletableFuture<>();
    /** When the last request was answered, on {@link System#nanoTime()}: the blocking wait's sign of progress. */
    private volatile long lastAnswer = System.nanoTime();
    /** Set when the limit is reached, the listing failed, or its caller stopped waiting: nothing more is sent. */
    private volatile boolean stopped;

    private LockListing(Kind<T> kind, String prefix, NamePattern pattern, int limit, int tolerated, int sources,
                        InFlight inFlight, Function<String, CompletableFuture<T>> confirm) {
        this.kind = kind;
        this.prefix = prefix;
        this.sources = sources;
        this.pattern = pattern;
        this.limit = limit;
        this.tolerated = tolerated;
        this.inFlight = inFlight;
        this.confirm = confirm;
        // No TYPE filter: it costs Redis a quarter more per call, and the pattern lets through only keys that end
        // with a tag and the kind's suffix, which Warden writes as one type; one of another type is passed over when
        // inspected (WRONGTYPE).
        this.args = KeyScanArgs.Builder.matches(pattern.keyPattern(prefix) + kind.suffix()).limit(SCAN_COUNT);
    }

    /**
     * {@link dev.warden.LockClient#locks(String, int)}: checks the arguments, starts the listing and waits for it
     * as {@link #await} does.
     *
     * @param start    starts the client's listing, refusing with {@link IllegalLockStateException} once it is closed
     * @throws NullPointerException     if {@code pattern} is null
     * @throws IllegalArgumentException if {@code pattern} is not a glob, or {@code limit} is not positive
     */
    public static <T> List<T> list(String pattern, int limit, BiFunction<NamePattern, Integer, LockListing<T>> start,
                            long stallNanos) {
        NamePattern glob = check(pattern, limit);
        return start.apply(glob, limit).await(stallNanos, describe(glob));
    }

    /**
     * {@link dev.warden.LockClient#locksAsync(String, int)}: checks the arguments (throwing, as {@link #list}),
     * then starts the listing; the future completes on {@code executor}, failed as the blocking form would throw.
     */
    public static <T> CompletableFuture<List<T>> listAsync(String pattern, int limit,
                                                   BiFunction<NamePattern, Integer, LockListing<T>> start,
                                                   Executor executor) {
        NamePattern glob = check(pattern, limit);
        return Futures.publish(() -> start.apply(glob, limit).result(), executor, describe(glob));
    }

    private static NamePattern check(String pattern, int limit) {
        NamePattern glob = NamePattern.compile(pattern);
        Require.argument(limit >= 1, "limit must be at least 1: %d", limit);
        return glob;
    }

    private static String describe(NamePattern glob) {
        return "listing of locks matching '" + glob.glob() + "'";
    }

    /**
     * Starts a listing, whose arguments passed {@link #check}.
     *
     * @param tolerated how many sources may fail while the listing goes on
     * @param confirm   reads the state of a lock that a source showed held or waited for, from every source (a
     *                  quorum's answer); null where there is one source, whose answer stands
     * @return the listing; {@link #result()} completes with the locks found, sorted by name
     */
    public static <T> LockListing<T> start(Kind<T> kind, String prefix, NamePattern pattern, int limit, int tolerated,
                                    InFlight inFlight, List<Source<T>> sources,
                                    Function<String, CompletableFuture<T>> confirm) {
        LockListing<T> listing = new LockListing<>(kind, prefix, pattern, limit, tolerated, sources.size(), inFlight,
                confirm);
        listing.pending.set(sources.size());
        for (Source<T> source : sources) {
            LockListing<T>.SourceState state = listing.new SourceState(source);
            source.masters().whenComplete((masters, error) -> listing.run(() -> {
                if (error != null) {
                    state.failed(error);
                } else {
                    for (RedisClusterAsyncCommands<String, String> master : masters) {
                        state.scan(master);
                    }
                }
            }));
        }
        if (sources.isEmpty()) {
            listing.finish();
        }
        return listing;
    }

    /** @return completes with the locks found (held, or with waiters), sorted by name; immutable */
    CompletableFuture<List<T>> result() {
        return result;
    }

    /**
     * Waits for the listing as a blocking call: as long as its requests keep being answered, each within
     * {@code stallNanos} of the one before (a listing of many locks takes longer than any one command may). An
     * interrupt stops the listing.
     *
     * @param what the operation, for messages
     * @throws LockTimeoutException if no request was answered for {@code stallNanos}
     * @throws LockException        if the listing failed, or the thread was interrupted (the flag is set again)
     * @throws IllegalStateException if the client is closed
     */
    List<T> await(long stallNanos, String what) {
        while (true) {
            try {
                return result.get(stallNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                abandon();
                Thread.currentThread().interrupt();
                throw new LockException(what + ": interrupted", e);
            } catch (ExecutionException e) {
                throw Errors.forCaller(e.getCause(), what);
            } catch (TimeoutException e) {
                if (System.nanoTime() - lastAnswer > stallNanos) {
                    abandon();
                    throw new LockTimeoutException(what + ": no answer from Redis within "
                            + TimeUnit.NANOSECONDS.toMillis(stallNanos) + " ms", e);
                }
            }
        }
    }

    /**
     * The caller stopped waiting: nothing more is sent, and what the requests in flight still bring is dropped; a
     * failure they bring has nobody to reach, so it is logged.
     */
    private void abandon() {
        stopped = true;
        result.whenComplete((locks, error) -> {
            if (error != null) {
                LOG.debug("a listing of locks nobody waits for any more failed: {}", error.toString());
            }
        });
    }

    /** One source's part of the listing. */
    private final class SourceState {
        private final Source<T> source;
        private final AtomicBoolean failed = new AtomicBoolean();

        SourceState(Source<T> source) {
            this.source = source;
        }

        /** Starts reading one master: its first page. */
        void scan(RedisClusterAsyncCommands<String, String> master) {
            new Pager(master).pump();
        }

        /**
         * One master's pages: the names of the page read last wait in a queue, and go out as inspections while
         * fewer than {@value #WINDOW} are in flight; once the queue is empty, the next page's {@code SCAN} goes out
         * (while the last inspections are still answered). Answers come on I/O threads, of more than one
         * connection on a cluster: the state is guarded by this object.
         */
        private final class Pager {
            private final RedisClusterAsyncCommands<String, String> master;
            private final ArrayDeque<String> queue = new ArrayDeque<>();
            private ScanCursor cursor = ScanCursor.INITIAL;
            private int inspecting;
            private boolean scanning;

            Pager(RedisClusterAsyncCommands<String, String> master) {
                this.master = master;
            }

            /** Sends what may go out now. */
            void pump() {
                List<String> names = new ArrayList<>();
                ScanCursor next = null;
                synchronized (this) {
                    if (stopped || failed.get()) {
                        return;
                    }
                    while (inspecting < WINDOW && !queue.isEmpty()) {
                        names.add(queue.poll());
                        inspecting++;
                    }
                    if (queue.isEmpty() && !scanning && !cursor.isFinished()) {
                        scanning = true;
                        next = cursor;
                    }
                }
                for (String name : names) {
                    send(() -> read(name), SourceState.this::found, error -> {
                        if (notALock(error)) {
                            LOG.debug("listing locks passes over lock '{}': {}", name, error.toString());
                        } else {
                            failed(error);
                        }
                    }, () -> {
                        synchronized (this) {
                            inspecting--;
                        }
                        pump();
                    });
                }
                if (next != null) {
                    ScanCursor from = next;
                    send(() -> master.scan(from, args).toCompletableFuture(), this::page, SourceState.this::failed,
                            () -> { });
                }
            }

            /** A page read: its keys of the listing's kind whose names match join the queue. */
            private void page(KeyScanCursor<String> page) {
                List<String> names = new ArrayList<>();
                for (String key : page.getKeys()) {
                    LockKeys.Parsed parsed = LockKeys.parse(prefix, key);
                    // Other lock kinds' keys and a lock's other keys (their own suffixes) are not read here.
                    if (parsed != null && parsed.suffix().equals(kind.suffix()) && pattern.matches(parsed.name())) {
                        names.add(parsed.name());
                    }
                }
                synchronized (this) {
                    cursor = page;
                    scanning = false;
                    queue.addAll(names);
                }
                pump();
            }
        }

        /**
         * Reads a lock on this source; where there is more than one source (a quorum), a lock this one shows held
         * or waited for is then read from all of them, once per name, within the same window. A failure to read
         * it from all fails the listing: too many servers failed for a majority.
         *
         * @return completes with the lock's state, or null where it was read from all already
         */
        private CompletableFuture<T> read(String name) {
            CompletableFuture<T> local = source.inspect().apply(name);
            if (confirm == null) {
                return local;
            }
            return local.thenCompose(info -> !kind.listed().test(info) || !seen.add(name)
                    ? CompletableFuture.<T>completedFuture(null)
                    : confirm.apply(name).handle((agreed, error) -> {
                        if (error != null) {
                            fail(error);
                        }
                        return agreed;
                    }));
        }

        /** Keeps a lock read (or null), once, if it is held or waited for. */
        private void found(T info) {
            if (info != null && kind.listed().test(info) && (confirm != null || seen.add(kind.name().apply(info)))) {
                keep(info);
            }
        }

        /** The source failed: the listing goes on without it if that many may fail, else fails. */
        void failed(Throwable error) {
            if (!failed.compareAndSet(false, true)) {
                return;
            }
            int failures = failedSources.incrementAndGet();
            if (failures <= tolerated) {
                LOG.debug("listing locks goes on without a server that failed: {}", error.toString());
            } else if (tolerated == 0) {
                fail(error);
            } else {
                fail(new LockConnectionException(failures + " of " + sources + " servers failed, and a listing "
                        + "can do without " + tolerated + ": " + Errors.translate(error, "first failure").getMessage(),
                        Errors.unwrap(error)));
            }
        }
    }

    /**
     * Whether an inspection failed because the key is not a lock (anymore): a value Warden did not write, or a
     * lock's other key of another type; a listing passes over it.
     */
    private static boolean notALock(Throwable error) {
        Throwable e = Errors.unwrap(error);
        return e instanceof RedisCommandExecutionException && e.getMessage() != null
                && (e.getMessage().contains("not a Warden lock") || e.getMessage().contains("WRONGTYPE"));
    }

    /** Keeps a lock for the result, up to the limit, which stops the listing. */
    private void keep(T info) {
        synchronized (found) {
            if (found.size() < limit) {
                found.add(info);
            }
            if (found.size() >= limit) {
                stopped = true;
            }
        }
    }

    /**
     * Sends a request counted in flight and in {@link #pending}; its answer goes to {@code then}, unless the
     * listing is over already; a failure (also a request refused by a closing client) to {@code failed}; and
     * after either, {@code after} runs.
     */
    private <T> void send(Supplier<CompletableFuture<T>> request, Consumer<T> then, Consumer<Throwable> failed,
                          Runnable after) {
        pending.incrementAndGet();
        inFlight.track(InFlight.Kind.WORK, request).whenComplete((value, error) -> run(() -> {
            lastAnswer = System.nanoTime();
            if (error != null) {
                failed.accept(error);
            } else if (!result.isDone()) {
                then.accept(value);
            }
            after.run();
        }));
    }

    /**
     * Runs the handling of one answer, then counts it done: the last one completes the result. What it throws
     * fails the listing, so that nothing is lost on an I/O thread.
     */
    private void run(Runnable handling) {
        try {
            handling.run();
        } catch (RuntimeException | Error e) {
            fail(e);
        } finally {
            if (pending.decrementAndGet() == 0) {
                finish();
            }
        }
    }

    private void fail(Throwable error) {
        stopped = true;
        result.completeExceptionally(error);
    }

    private void finish() {
        List<T> locks;
        synchronized (found) {
            locks = new ArrayList<>(found);
        }
        locks.sort(Comparator.comparing(kind.name()));
        result.complete(List.copyOf(locks));
    }
}
