package dev.warden.bench;

import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.redisserver.Resp;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * S5, S6 and S8, run once per contender: the cost of many held leases rather than of lock operations.
 *
 * <p>S5: N leases held with the watchdog at a short lease for a while: renewal requests per lease per renewal
 * period (top-level EVAL/EVALSHA calls from INFO commandstats), the client process's CPU time, whether every
 * lease is still held, and Redis's main-thread CPU, the capacity it implies and the commands run per renewal due
 * ({@link ServerCost}); beside them the renewals performed per renewal due and Redis's CPU per renewal performed,
 * since a watchdog that renews less often than due looks cheaper per renewal due than it is per renewal. S6: Redis memory per held lock (INFO used_memory delta), client heap per held lease, and
 * what a released lock leaves behind.
 */
final class Resources {
    /** S5: Redis's main-thread CPU per renewal due (each lease once per third of its lease), in microseconds. */
    static final String REDIS_CPU_PER_RENEWAL = "redis cpu us per renewal";
    /** S5: the renewals per second one Redis core serves at {@link #REDIS_CPU_PER_RENEWAL}. */
    static final String CAPACITY_PER_RENEWAL = "redis capacity renewals/s";
    /** S5: the commands Redis ran per renewal due, those that scripts call included. */
    static final String COMMANDS_PER_RENEWAL = "commands per renewal";
    /**
     * S5: the renewals performed (each one {@code PEXPIREAT} of a lease's key) per renewal due. A watchdog that renews
     * less often than every third of its lease shows below 1, and then costs Redis less per renewal due than per
     * renewal it performs.
     */
    static final String RENEWALS_PERFORMED = "renewals performed per renewal due";
    /** S5: Redis's main-thread CPU per renewal performed, in microseconds. */
    static final String REDIS_CPU_PER_RENEWAL_PERFORMED = "redis cpu us per renewal performed";

    private Resources() {
    }

    static Map<String, Double> renewals(String contender, String uri, int leases, Duration lease, Duration hold)
            throws Exception {
        call(uri, "FLUSHALL");
        try (Holder holder = Holder.open(contender, uri, lease); ServerCost server = ServerCost.open(uri)) {
            holder.acquire("s5:", leases);
            long calls = scriptCalls(uri);
            long cpu = processCpuNanos();
            ServerCost.Reading before = server.read();
            TimeUnit.MILLISECONDS.sleep(hold.toMillis());
            ServerCost.Reading after = server.read();
            double periods = hold.toMillis() / (lease.toMillis() / 3.0);
            // The renewals due: each lease once per period.
            ServerCost.Cost perRenewal = after.since(before, leases * periods);
            Map<String, Double> figures = new LinkedHashMap<>();
            figures.put("renew requests per lease per period", (scriptCalls(uri) - calls) / (leases * periods));
            figures.put("client cpu ms per s", (processCpuNanos() - cpu) / 1e6 / (hold.toMillis() / 1000.0));
            figures.put(REDIS_CPU_PER_RENEWAL, perRenewal.cpuMicros());
            figures.put(CAPACITY_PER_RENEWAL, perRenewal.capacity());
            figures.put(COMMANDS_PER_RENEWAL, perRenewal.commands());
            long performed = after.pexpires() - before.pexpires();
            figures.put(RENEWALS_PERFORMED, performed / (leases * periods));
            figures.put(REDIS_CPU_PER_RENEWAL_PERFORMED,
                    performed > 0 ? after.since(before, performed).cpuMicros() : Double.NaN);
            figures.put("leases still held", (double) holder.stillHeld());
            holder.releaseAll();
            return figures;
        }
    }

    static Map<String, Double> memory(String contender, String uri, int locks) throws Exception {
        call(uri, "FLUSHALL");
        try (Holder holder = Holder.open(contender, uri, Duration.ofSeconds(60))) {
            Baseline baseline = warmUp(holder, uri, "s6");
            long keysBefore = baseline.keys();
            long redisBefore = baseline.redisBytes();
            holder.acquire("s6:", locks);
            long heapHeld = settledHeapUsed();
            long redisAfter = usedMemory(uri);
            long keysHeld = dbSize(uri);
            holder.releaseAll();
            // Held against released, in the same client: the clients of earlier runs still being shut down in the
            // background free memory meanwhile, which once made a before-and-after figure negative.
            long heapReleased = settledHeapUsed();
            Map<String, Double> figures = new LinkedHashMap<>();
            figures.put("redis bytes per held lock", (redisAfter - redisBefore) / (double) locks);
            figures.put("client heap bytes per lease", (heapHeld - heapReleased) / (double) locks);
            figures.put("keys per held lock", (keysHeld - keysBefore) / (double) locks);
            figures.put("keys per released lock", (dbSize(uri) - keysBefore) / (double) locks);
            // Again with every holder asking for its fencing token, which Warden keeps for a day after the release.
            if (holder.fences()) {
                // The flush takes the client's own keys too: the baseline is taken again after it.
                call(uri, "FLUSHALL");
                long keysFlushed = dbSize(uri);
                long redisFlushed = usedMemory(uri);
                holder.acquire("s6f:", locks);
                holder.askFences();
                long redisFenced = usedMemory(uri);
                holder.releaseAll();
                figures.put("redis bytes per held fenced lock", (redisFenced - redisFlushed) / (double) locks);
                figures.put("keys per released fenced lock", (dbSize(uri) - keysFlushed) / (double) locks);
                figures.put("redis bytes per fencing counter", (usedMemory(uri) - redisFlushed) / (double) locks);
            }
            call(uri, "FLUSHALL");
            return figures;
        }
    }

    /**
     * S8: {@code locks} locks held by one client with the watchdog ({@code lease}, renewed every third of it) for
     * one renewal period after the last is acquired: Redis bytes per held lock, client heap per lease, renewal
     * requests per lease in that period, and how many locks Redis still holds at its end. Each lease is due one
     * renewal in the period, as they were acquired over a longer time than a period. Nothing is asked of the
     * locks one by one while they are held: both contenders are checked with DBSIZE.
     */
    static Map<String, Double> manyLocks(String contender, String uri, int locks, Duration lease) throws Exception {
        call(uri, "FLUSHALL");
        try (Holder holder = Holder.open(contender, uri, lease)) {
            Baseline baseline = warmUp(holder, uri, "s8");
            long keysBefore = baseline.keys();
            long redisBefore = baseline.redisBytes();
            long started = System.nanoTime();
            holder.acquire("s8:", locks);
            double acquireSeconds = (System.nanoTime() - started) / 1e9;
            long calls = scriptCalls(uri);
            long periodStarted = System.nanoTime();
            long heapHeld = settledHeapUsed();
            long redisAfter = usedMemory(uri);
            long period = lease.toNanos() / 3;
            TimeUnit.NANOSECONDS.sleep(Math.max(0, period - (System.nanoTime() - periodStarted)));
            long renewals = scriptCalls(uri) - calls;
            long keysHeld = dbSize(uri) - keysBefore;
            started = System.nanoTime();
            int notHeld = holder.releaseAll();
            double releaseSeconds = (System.nanoTime() - started) / 1e9;
            long heapReleased = settledHeapUsed();
            Map<String, Double> figures = new LinkedHashMap<>();
            figures.put("locks", (double) locks);
            figures.put("acquired per s", locks / acquireSeconds);
            figures.put("redis bytes per held lock", (redisAfter - redisBefore) / (double) locks);
            figures.put("client heap bytes per lease", (heapHeld - heapReleased) / (double) locks);
            figures.put("renew requests per lease per period", renewals / (double) locks);
            figures.put("locks lost in the period", (double) (locks - keysHeld));
            figures.put("locks not held at release", (double) notHeld);
            figures.put("released per s", locks / releaseSeconds);
            figures.put("keys left after release", (double) (dbSize(uri) - keysBefore));
            call(uri, "FLUSHALL");
            return figures;
        }
    }

    /** The keys and Redis memory before a measurement's locks are taken. */
    private record Baseline(long keys, long redisBytes) {
    }

    /**
     * One lock taken and released first: a client's one-time keys (Warden's identity record, written after its first
     * acquire) are no lock's. Then the keys and memory before the locks, read once the clients closed by earlier runs
     * have stopped their threads.
     */
    private static Baseline warmUp(Holder holder, String uri, String scenario) throws Exception {
        holder.acquire(scenario + "-warm-up:", 1);
        holder.releaseAll();
        awaitKeys(uri, holder.keysPerClient());
        Baseline baseline = new Baseline(dbSize(uri), usedMemory(uri));
        awaitQuietThreads();
        return baseline;
    }

    /** Holds many locks of one contender, acquired in parallel batches. */
    private interface Holder extends AutoCloseable {
        void acquire(String prefix, int count) throws Exception;

        int stillHeld();

        /** @return whether this lock issues fencing tokens */
        default boolean fences() {
            return false;
        }

        /** Asks every lease for its fencing token. */
        default void askFences() throws Exception {
            throw new UnsupportedOperationException("no fencing tokens");
        }

        /** @return how many of the held locks were found no longer held at their release */
        int releaseAll() throws Exception;

        /** @return how many keys the client keeps of its own once it has acquired, besides the locks' */
        default int keysPerClient() {
            return 0;
        }

        @Override
        void close();

        static Holder open(String contender, String uri, Duration lease) {
            return switch (contender) {
                case "warden" -> new WardenHolder(uri, lease);
                case "redisson" -> new RedissonHolder(uri, lease);
                default -> throw new IllegalArgumentException("S5, S6 and S8 measure warden and redisson, not "
                        + contender);
            };
        }
    }

    private static final class WardenHolder implements Holder {
        private final LockClient client;
        private final List<Lease> leases = new ArrayList<>();

        WardenHolder(String uri, Duration lease) {
            client = LockClient.create(LockConfig.builder().redisUri(uri).keyPrefix("b:").defaultLease(lease).build());
        }

        @Override
        public void acquire(String prefix, int count) {
            for (int from = 0; from < count; from += 1000) {
                List<CompletableFuture<Lease>> batch = new ArrayList<>();
                for (int i = from; i < Math.min(count, from + 1000); i++) {
                    batch.add(client.lock(prefix + i).acquireAsync(Duration.ofSeconds(30)));
                }
                batch.forEach(f -> leases.add(f.join()));
            }
        }

        @Override
        public int stillHeld() {
            return (int) leases.stream().filter(Lease::isHeld).count();
        }

        @Override
        public boolean fences() {
            return true;
        }

        /** Its identity record ({@code b:client:<tag>}). */
        @Override
        public int keysPerClient() {
            return 1;
        }

        @Override
        public void askFences() throws Exception {
            // From 16 threads, since each first ask is a round trip.
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try {
                List<Future<Long>> fences = new ArrayList<>();
                for (Lease lease : leases) {
                    fences.add(pool.submit(lease::fencingToken));
                }
                for (Future<Long> fence : fences) {
                    fence.get();
                }
            } finally {
                pool.shutdown();
            }
        }

        /** In batches of 1,000 asynchronous releases, as {@link RedissonHolder#releaseAll} does. */
        @Override
        public int releaseAll() {
            int lost = 0;
            for (int from = 0; from < leases.size(); from += 1000) {
                List<CompletableFuture<Boolean>> batch = new ArrayList<>();
                for (Lease lease : leases.subList(from, Math.min(leases.size(), from + 1000))) {
                    batch.add(lease.releaseAsync());
                }
                for (CompletableFuture<Boolean> released : batch) {
                    lost += released.join() ? 0 : 1;
                }
            }
            leases.clear();
            return lost;
        }

        @Override
        public void close() {
            client.close();
        }
    }

    private static final class RedissonHolder implements Holder {
        private final RedissonClient client;
        private final List<RLock> locks = new ArrayList<>();

        RedissonHolder(String uri, Duration lease) {
            Config config = new Config();
            config.useSingleServer().setAddress(uri);
            config.setLockWatchdogTimeout(lease.toMillis());
            client = Redisson.create(config);
        }

        @Override
        public void acquire(String prefix, int count) {
            long thread = Thread.currentThread().getId();
            for (int from = 0; from < count; from += 1000) {
                List<CompletableFuture<Void>> batch = new ArrayList<>();
                for (int i = from; i < Math.min(count, from + 1000); i++) {
                    RLock lock = client.getLock("b:" + prefix + i);
                    locks.add(lock);
                    batch.add(lock.lockAsync(thread).toCompletableFuture());
                }
                batch.forEach(CompletableFuture::join);
            }
        }

        @Override
        public int stillHeld() {
            return (int) locks.stream().filter(RLock::isLocked).count();
        }

        /** Counts an unlock that Redisson refuses as not held by this thread (the lock expired) as lost. */
        @Override
        public int releaseAll() {
            // In batches, as acquired: 100,000 unlocks at once exhaust Redisson's connection pool on a slow machine.
            long thread = Thread.currentThread().getId();
            int lost = 0;
            for (int from = 0; from < locks.size(); from += 1000) {
                List<CompletableFuture<Void>> batch = new ArrayList<>();
                for (RLock lock : locks.subList(from, Math.min(locks.size(), from + 1000))) {
                    batch.add(lock.unlockAsync(thread).toCompletableFuture());
                }
                for (CompletableFuture<Void> unlocked : batch) {
                    try {
                        unlocked.join();
                    } catch (java.util.concurrent.CompletionException e) {
                        if (!(e.getCause() instanceof IllegalMonitorStateException)) {
                            throw e;
                        }
                        lost++;
                    }
                }
            }
            locks.clear();
            return lost;
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * Waits, at most 10 s, until the number of live threads has not fallen for a second: until the clients closed
     * before have finished shutting down their thread pools.
     */
    private static void awaitQuietThreads() throws InterruptedException {
        var threads = ManagementFactory.getThreadMXBean();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int last = threads.getThreadCount();
        while (System.nanoTime() - end < 0) {
            TimeUnit.SECONDS.sleep(1);
            int now = threads.getThreadCount();
            if (now >= last) {
                return;
            }
            last = now;
        }
    }

    /**
     * The heap in use after collections stop freeing more than 64 KB (at most eight): one {@code System.gc()} may
     * leave garbage of the contenders closed before, which once made the per-lease figure negative.
     */
    private static long settledHeapUsed() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 8; i++) {
            System.gc();
            long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            if (used - now < 64 * 1024) {
                return now;
            }
            used = now;
        }
        return used;
    }

    /** @return the scripts the server at {@code uri} has run since it started: EVAL and EVALSHA calls */
    static long scriptCalls(String uri) throws Exception {
        String stats = (String) call(uri, "INFO", "commandstats");
        long calls = 0;
        for (String line : stats.split("\r\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                calls += Long.parseLong(line.replaceAll("^cmdstat_[a-z]+:calls=(\\d+),.*", "$1"));
            }
        }
        return calls;
    }

    private static long usedMemory(String uri) throws Exception {
        String info = (String) call(uri, "INFO", "memory");
        for (String line : info.split("\r\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()));
            }
        }
        throw new IllegalStateException("no used_memory in INFO memory");
    }

    /**
     * @return the CPU time, user and system, that the Redis server at {@code uri} has used so far, in seconds: its
     *         main thread's, where it reports it ({@link ServerCost#cpuSeconds})
     */
    static double redisCpuSeconds(String uri) throws Exception {
        return ServerCost.cpuSeconds((String) call(uri, "INFO", "cpu"));
    }

    /**
     * Waits, 5 s at most, until the server holds {@code keys} keys: a client's own keys are written in the background
     * after its first acquire.
     *
     * @throws IllegalStateException if it does not come to hold them
     */
    private static void awaitKeys(String uri, long keys) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (dbSize(uri) != keys) {
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException("expected " + keys + " keys of the client's own, found "
                        + dbSize(uri));
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

    private static long dbSize(String uri) throws Exception {
        return (Long) call(uri, "DBSIZE");
    }

    /** @return the reply to one command, sent on a connection of its own to the server at {@code uri} */
    static Object call(String uri, String... command) throws Exception {
        URI parsed = URI.create(uri);
        try (Resp resp = new Resp(parsed.getHost(), parsed.getPort(), Duration.ofSeconds(30))) {
            return resp.call(command);
        }
    }
}
