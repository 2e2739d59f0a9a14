package dev.warden.internal.script;

import dev.warden.Identity;
import dev.warden.LockException;
import dev.warden.LockInfo;
import dev.warden.ReadWriteLockInfo;
import dev.warden.SemaphoreInfo;
import dev.warden.internal.base.Errors;
import dev.warden.internal.base.UnexpectedReplyException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The scripts' replies and the grant message, each decoded once, here, into a typed value, as Lettuce decodes each
 * command in its output type. Nothing else in the engine reads a reply by position or by a magic value. A reply of
 * an unexpected shape (a script of another version, a server that is not Redis) fails with an
 * {@link UnexpectedReplyException} naming the script and the reply, which {@link Errors#translate} turns into a
 * {@link LockException} naming the operation.
 */
public final class Replies {
    private Replies() {
    }

    /** What an acquire script ({@code acquire.lua}, {@code acquire-queued.lua}) answered. */
    public sealed interface Acquire permits Acquired, Held {
    }

    /** What a shared lock's try answered ({@code share-acquire.lua}). */
    public sealed interface ShareTry permits Acquired, Held, Queued {
    }

    /**
     * The lock was acquired.
     *
     * @param fence         the fence issued with it, or 0 when none was (the holder gets one when it first asks)
     * @param grantedMillis the lease the script set, counted from the sending of the try
     */
    public record Acquired(long fence, long grantedMillis) implements Acquire, ShareTry {
    }

    /**
     * The lock is held by another token, or free while older waiters come first.
     *
     * @param holderTtlMillis the holder's remaining lease in ms, or -1 when unknown or free
     * @param quiet           where waiters queue: the try registered the waiter quietly ({@code queue.lua}), so it
     *                        need not renew its registration before the holder's TTL runs out
     */
    public record Held(long holderTtlMillis, boolean quiet) implements Acquire, ShareTry {
        Held(long holderTtlMillis) {
            this(holderTtlMillis, false);
        }
    }

    /**
     * A shared lock's try found no room and joined the queue just now, at its tail ({@code enqueue} in
     * {@code share.lua}); a try that finds its token queued already keeps its place and answers {@link Held}.
     *
     * @param holderTtlMillis as {@link Held}'s
     * @param score           its place: its arrival in server µs, above every waiter queued before it
     * @param othersAhead     how many waiters of other clients were queued then, every one of them ahead of it
     */
    public record Queued(long holderTtlMillis, long score, long othersAhead) implements ShareTry {
    }

    /** What a release where waiters queue ({@code release-queued.lua}) answered. */
    public sealed interface Release permits Outcome, GrantedHere {
        /** @return whether the releasing token still held the lock */
        public boolean held();
    }

    /** A release's plain outcomes. */
    public enum Outcome implements Release {
        /** The token no longer held the lock (expired or taken); a waiter that gave up left the queue. */
        NOT_HELD,
        /** Released; nobody waited. */
        RELEASED,
        /** Granted to the oldest waiter, of another client, which was told on its client's channel. */
        GRANTED_ELSEWHERE;

        @Override
        public boolean held() {
            return this != NOT_HELD;
        }
    }

    /**
     * Granted to a waiter of the releasing client, which the script does not announce: the client passes it on.
     *
     * @param fence    the fence issued to it, or 0 when the holder had none
     * @param token    the waiter's token
     * @param arm      the number of the waiter's try that registered it (see {@code Acquisition})
     * @param upcoming the first (up to 8) tokens queued behind it
     */
    public record GrantedHere(long fence, String token, int arm, List<String> upcoming) implements Release {
        @Override
        public boolean held() {
            return true;
        }
    }

    /**
     * The state of a lock as {@code inspect.lua} read it.
     *
     * @param held         whether a token holds it
     * @param leftMillis   the holder's remaining lease, 0 when free
     * @param fence        the last fence issued, 0 if none
     * @param waiters      live waiter registrations, queued or not
     * @param token        the holder's token, "" when free
     * @param nowMicros    the server's time when it read the lock, in µs
     * @param arrivalMicros when the longest-waiting live queued waiter joined the queue (server µs), -1 if none
     * @param waiting      the origins of the first live waiters, longest first, where their tokens have one
     */
    public record State(boolean held, long leftMillis, long fence, int waiters, String token, long nowMicros,
                 long arrivalMicros, List<Tokens.Origin> waiting) {
        /** How much of the holder's token {@link LockInfo#holder()} shows: enough to tell holders apart. */
        static final int HOLDER_CHARS = 8;
        /**
         * 2020-01-01 in µs: fences are at least the server's time in µs when issued (the clock minimum,
         * {@code next_fence} in lock.lua), so one below this was not issued by Warden on a server with a sane clock,
         * and tells no time.
         */
        static final long EARLIEST_FENCE_TIME_MICROS = 1_577_836_800_000_000L;

        /**
         * @param identities the identities of the holder's and the waiters' origins ({@link #origins()})
         * @return the lock's state for the API, named {@code name}
         */
        public LockInfo info(String name, Map<Tokens.Origin, Identity> identities) {
            List<Identity> named = new ArrayList<>(waiting.size());
            for (Tokens.Origin origin : waiting) {
                named.add(identities.get(origin));
            }
            return new LockInfo(name, held, Duration.ofMillis(leftMillis), fence, waiters, holder(), heldFor(),
                    longestWait(), holderOrigin().map(identities::get), named);
        }

        /** @return the origin of the holder's token; empty when free or where the token has none */
        public Optional<Tokens.Origin> holderOrigin() {
            return held ? Tokens.Origin.of(token) : Optional.empty();
        }

        /** @return the origins of the holder and the waiters, whose identities {@link #info} needs */
        public Set<Tokens.Origin> origins() {
            Set<Tokens.Origin> origins = new HashSet<>(waiting);
            holderOrigin().ifPresent(origins::add);
            return origins;
        }

        /** @return the start of the holder's token, empty when free */
        public Optional<String> holder() {
            return held ? Optional.of(token.substring(0, Math.min(HOLDER_CHARS, token.length())))
                    : Optional.empty();
        }

        /**
         * @return how long ago the holder's fence was issued, by the server's clock; empty when free, while the
         *         holder has no fence, or when the fence tells no time (ahead of the server's clock, or too low)
         */
        public Optional<Duration> heldFor() {
            return held && fence >= EARLIEST_FENCE_TIME_MICROS && fence <= nowMicros
                    ? Optional.of(Duration.of(nowMicros - fence, ChronoUnit.MICROS)) : Optional.empty();
        }

        /** @return how long the longest-waiting live queued waiter has waited; empty if none is queued */
        Optional<Duration> longestWait() {
            return arrivalMicros >= 0 && arrivalMicros <= nowMicros
                    ? Optional.of(Duration.of(nowMicros - arrivalMicros, ChronoUnit.MICROS)) : Optional.empty();
        }
    }

    /**
     * A grant announced on a client's channel by a release of another client: {@code "<token>:<fence>:<arm>"}.
     *
     * @param token the granted waiter's token
     * @param fence its fence, 0 when none was issued
     * @param arm   the number of the try that registered it
     */
    public record Grant(String token, long fence, int arm) {
    }

    /** {@code acquire.lua}: the fence (0: none) when acquired, else -1 minus the holder's PTTL. */
    static Acquire acquire(Long reply, long leaseMillis) {
        long value = integer("acquire", reply);
        return value >= 0 ? new Acquired(value, leaseMillis) : new Held(-1 - value);
    }

    /**
     * {@code acquire-queued.lua}: {1, fence, lease ms} when acquired; else a plain integer (a list of one here), -1
     * minus the holder's PTTL when held, 0 when free but older waiters come first.
     */
    static Acquire acquireQueued(List<Object> reply) {
        return acquired("acquire-queued", reply);
    }

    /**
     * {@code share-acquire.lua}: {1, fence, lease ms} when acquired; else a plain integer (a list of one here), -1
     * minus how long until the first holder's lease ends (0 when unknown, or when earlier waiters come first), or
     * when the try joined the queue, {that integer, its score, the waiters of other clients ahead}.
     */
    static ShareTry shareAcquire(List<Object> reply) {
        String script = "share-acquire";
        if (reply != null && reply.size() == 3 && reply.get(0) instanceof Long wait && wait <= 0) {
            return new Queued(-1 - wait, integer(script, reply.get(1)), integer(script, reply.get(2)));
        }
        return (ShareTry) acquired(script, reply);
    }

    /**
     * {@code share-release.lua}: 1 released, 0 the token held nothing; or {1, grant...}: released, and these
     * waiters of the releasing client were granted shares ({@code "<token>:<fence>:<arm>"}, as a grant message).
     *
     * @return whether the token held a share, and the grants to the releasing client's waiters
     */
    static ShareReleased shareRelease(List<Object> reply) {
        String script = "share-release";
        if (reply != null && reply.size() > 1 && Long.valueOf(1L).equals(reply.get(0))) {
            List<Grant> grants = new ArrayList<>(reply.size() - 1);
            for (Object item : reply.subList(1, reply.size())) {
                Grant grant = item instanceof String message ? grant(message) : null;
                if (grant == null) {
                    throw unexpected(script, reply);
                }
                grants.add(grant);
            }
            return new ShareReleased(true, grants);
        }
        long value = integer(script, single(script, reply));
        if (value != 0 && value != 1) {
            throw unexpected(script, reply);
        }
        return new ShareReleased(value == 1, List.of());
    }

    /**
     * What a shared lock's release answered.
     *
     * @param held   whether the token held a share
     * @param grants the shares it lent on to waiters of the releasing client, which learn of them from this reply
     */
    public record ShareReleased(boolean held, List<Grant> grants) {
    }

    /** {@code share-resize.lua}: the number of permits the semaphore had, 0 if none was stored. */
    static long shareResized(List<Object> reply) {
        String script = "share-resize";
        if (reply == null || reply.size() != 2) {
            throw unexpected(script, reply);
        }
        long before = integer(script, reply.get(0));
        if (before < 0 || integer(script, reply.get(1)) < 0) {
            throw unexpected(script, reply);
        }
        return before;
    }

    /**
     * In {@link #shareHanded}'s answer, a waiter that did not take its share over: the permits in use were above a
     * semaphore's lowered number.
     */
    public static final long NOT_TAKEN_OVER = -2;

    /**
     * {@code share-handed.lua}: the fences of the {@code waiters} that took the share over, in their order, or
     * {@link #NOT_TAKEN_OVER}; or empty if the old holder's token held nothing ({@code -1}, a list of one here).
     */
    static Optional<long[]> shareHanded(List<Object> reply, int waiters) {
        String script = "share-handed";
        if (reply != null && reply.size() == waiters && !(waiters == 1 && Long.valueOf(-1L).equals(reply.get(0)))) {
            long[] fences = new long[waiters];
            for (int i = 0; i < waiters; i++) {
                fences[i] = integer(script, reply.get(i));
                if (fences[i] < 0 && fences[i] != NOT_TAKEN_OVER) {
                    throw unexpected(script, reply);
                }
            }
            return Optional.of(fences);
        }
        if (integer(script, single(script, reply)) != -1) {
            throw unexpected(script, reply);
        }
        return Optional.empty();
    }

    private static Acquire acquired(String script, List<Object> reply) {
        if (reply != null && reply.size() == 3 && Long.valueOf(1L).equals(reply.get(0))) {
            return new Acquired(integer(script, reply.get(1)), integer(script, reply.get(2)));
        }
        if (reply != null && reply.size() == 2 && Long.valueOf(2L).equals(reply.get(0))) {
            return new Held(integer(script, reply.get(1)), true);
        }
        long value = integer(script, single(script, reply));
        if (value > 0) {
            throw unexpected(script, reply);
        }
        return new Held(-1 - value);
    }

    /**
     * What {@code multi-acquire.lua} answered.
     *
     * @param fences one fence per lock (0: none issued) when all were taken, else null
     * @param busy   the index (from 0) of a lock that was held or had waiters, or -1 when all were taken
     */
    public record MultiAcquire(long[] fences, int busy) {
        /** @return whether every lock was taken */
        public boolean acquired() {
            return fences != null;
        }
    }

    /** {@code multi-acquire.lua}: {1, fence...} with one fence per lock, or {0, index from 1}. */
    static MultiAcquire multiAcquire(List<Object> reply, int locks) {
        if (reply != null && reply.size() == locks + 1 && Long.valueOf(1L).equals(reply.get(0))) {
            long[] fences = new long[locks];
            for (int i = 0; i < locks; i++) {
                fences[i] = integer("multi-acquire", reply.get(i + 1));
            }
            return new MultiAcquire(fences, -1);
        }
        if (reply != null && reply.size() == 2 && Long.valueOf(0L).equals(reply.get(0))) {
            long index = integer("multi-acquire", reply.get(1));
            if (index >= 1 && index <= locks) {
                return new MultiAcquire(null, (int) index - 1);
            }
        }
        throw unexpected("multi-acquire", reply);
    }

    /**
     * What {@code refresh.lua} answered.
     *
     * @param holderTtlMillis the holder's TTL, when the lock is held by another and the client listens; else -1
     * @param renewed         per waiter, in the order sent: whether its registration was renewed (none when -1)
     */
    public record Refreshed(long holderTtlMillis, boolean[] renewed) {
        /** @return whether the lock was still held by another: the renewed waiters may sleep on */
        public boolean held() {
            return holderTtlMillis >= 0;
        }
    }

    /** {@code refresh.lua}: {the holder's PTTL, 1 or 0 per waiter}, or {-1}. */
    static Refreshed refresh(List<Object> reply, int waiters) {
        if (reply != null && reply.size() == 1 && Long.valueOf(-1L).equals(reply.get(0))) {
            return new Refreshed(-1, new boolean[waiters]);
        }
        if (reply != null && reply.size() == waiters + 1) {
            long ttl = integer("refresh", reply.get(0));
            boolean[] renewed = new boolean[waiters];
            for (int i = 0; i < waiters; i++) {
                long flag = integer("refresh", reply.get(i + 1));
                if (flag != 0 && flag != 1) {
                    throw unexpected("refresh", reply);
                }
                renewed[i] = flag == 1;
            }
            if (ttl >= 0) {
                return new Refreshed(ttl, renewed);
            }
        }
        throw unexpected("refresh", reply);
    }

    /**
     * The state of a shared lock as {@code share-inspect.lua} read it, counting only holders whose lease has not
     * ended.
     *
     * @param capacity      the capacity stored with it (a semaphore's permits), 0 if none is stored
     * @param used          the permits its holders have
     * @param fence         the last fence issued, 0 if none
     * @param holders       how many hold a share
     * @param whole         how many of them hold the whole capacity (a read-write lock's writer)
     * @param waiters       live waiter registrations
     * @param leftMillis    the longest lease left among the holders, 0 with none
     * @param nowMicros     the server's time when it read the lock, in µs
     * @param arrivalMicros when the longest-waiting live waiter joined the queue (server µs), -1 if none
     * @param wholeOrigins  the origins of the first holders of the whole capacity, where their tokens have one
     * @param partOrigins   the origins of the first other holders, the leases that end soonest first
     * @param waiting       the origins of the first live waiters, longest first
     */
    public record ShareState(long capacity, long used, long fence, int holders, int whole, int waiters, long leftMillis,
                      long nowMicros, long arrivalMicros, List<Tokens.Origin> wholeOrigins,
                      List<Tokens.Origin> partOrigins, List<Tokens.Origin> waiting) {
        /** @return the origins of holders and waiters, whose identities the info methods need */
        public Set<Tokens.Origin> origins() {
            Set<Tokens.Origin> origins = new HashSet<>(waiting);
            origins.addAll(wholeOrigins);
            origins.addAll(partOrigins);
            return origins;
        }

        /** @return how long the longest-waiting live waiter has waited; empty if none waits */
        Optional<Duration> longestWait() {
            return arrivalMicros >= 0 && arrivalMicros <= nowMicros
                    ? Optional.of(Duration.of(nowMicros - arrivalMicros, ChronoUnit.MICROS)) : Optional.empty();
        }

        /** @return the state as a read-write lock's, named {@code name}, its origins named by {@code identities} */
        public ReadWriteLockInfo readWrite(String name, Map<Tokens.Origin, Identity> identities) {
            return new ReadWriteLockInfo(name, holders - whole, whole > 0, Duration.ofMillis(leftMillis), fence,
                    waiters, longestWait(), wholeOrigins.stream().findFirst().map(identities::get),
                    named(partOrigins, identities), named(waiting, identities));
        }

        /** @return the origins of the first holders, those of the whole capacity first */
        public List<Tokens.Origin> holding() {
            List<Tokens.Origin> holding = new ArrayList<>(wholeOrigins);
            holding.addAll(partOrigins);
            return holding;
        }

        /** @return the state as a semaphore's, named {@code name}, its origins named by {@code identities} */
        public SemaphoreInfo semaphore(String name, Map<Tokens.Origin, Identity> identities) {
            List<Tokens.Origin> holding = holding();
            return new SemaphoreInfo(name, (int) capacity, (int) Math.max(capacity - used, 0), holders,
                    Duration.ofMillis(leftMillis), fence, waiters, longestWait(),
                    named(holding.subList(0, Math.min(holding.size(), LockInfo.WAITING_SHOWN)), identities),
                    named(waiting, identities));
        }

        /**
         * @param held     how many of the holders hold what the view is of
         * @param holderOf the origins of those holders
         * @return the state as one half of a read-write lock, or a semaphore's permits, sees it: held by one of
         *         {@code held} holders, the first of {@code holderOf} named as the holder
         */
        public LockInfo view(String name, int held, List<Tokens.Origin> holderOf, Map<Tokens.Origin,
                             Identity> identities) {
            return new LockInfo(name, held > 0, Duration.ofMillis(held > 0 ? leftMillis : 0), fence, waiters,
                    Optional.empty(), Optional.empty(), longestWait(),
                    held > 0 ? holderOf.stream().findFirst().map(identities::get) : Optional.empty(),
                    named(waiting, identities));
        }

        private static List<Identity> named(List<Tokens.Origin> origins, Map<Tokens.Origin, Identity> identities) {
            List<Identity> named = new ArrayList<>(origins.size());
            for (Tokens.Origin origin : origins) {
                named.add(identities.get(origin));
            }
            return named;
        }
    }

    /**
     * {@code share-inspect.lua}: {capacity, used, fence, holders, whole, waiters, longest ms left, server µs, arrival
     * µs, whole holders' origins, other holders' origins, waiters' origins}.
     */
    static ShareState shareState(List<Object> reply) {
        if (reply == null || reply.size() != 12) {
            throw unexpected("share-inspect", reply);
        }
        long[] values = new long[9];
        for (int i = 0; i < 9; i++) {
            values[i] = integer("share-inspect", reply.get(i));
        }
        return new ShareState(values[0], values[1], values[2], (int) values[3], (int) values[4], (int) values[5],
                values[6], values[7], values[8], origins("share-inspect", reply.get(9)),
                origins("share-inspect", reply.get(10)), origins("share-inspect", reply.get(11)));
    }

    /** A list of token origins ({@code "<tag>.<thread>"}); an entry that is not one is passed over. */
    private static List<Tokens.Origin> origins(String script, Object reply) {
        if (!(reply instanceof List<?> list)) {
            throw unexpected(script, reply);
        }
        List<Tokens.Origin> origins = new ArrayList<>(list.size());
        for (Object origin : list) {
            Tokens.Origin.of(string(script, origin)).ifPresent(origins::add);
        }
        return List.copyOf(origins);
    }

    /**
     * {@code share-force-release.lua}: the highest fence of the removed holders, -1 if none was removed.
     *
     * @return that fence (0 if none had one), or empty if no holder was removed
     */
    static OptionalLong shareForceReleased(Long reply) {
        long value = integer("share-force-release", reply);
        if (value < -1) {
            throw unexpected("share-force-release", reply);
        }
        return value < 0 ? OptionalLong.empty() : OptionalLong.of(value);
    }

    /**
     * {@code release-queued.lua}: 0, 1 or 3 as a list of one, or {3, fence, token, arm, tokens queued behind} for
     * a grant to a waiter of the releasing client.
     */
    static Release releaseQueued(List<Object> reply) {
        if (reply != null && reply.size() == 5 && Long.valueOf(3L).equals(reply.get(0))) {
            return new GrantedHere(integer("release-queued", reply.get(1)), string("release-queued", reply.get(2)),
                    (int) integer("release-queued", reply.get(3)), tokens("release-queued", reply.get(4)));
        }
        long value = integer("release-queued", single("release-queued", reply));
        if (value == 0) {
            return Outcome.NOT_HELD;
        } else if (value == 1) {
            return Outcome.RELEASED;
        } else if (value == 3) {
            return Outcome.GRANTED_ELSEWHERE;
        }
        throw unexpected("release-queued", reply);
    }

    /** A script that answers 1 (the token holds, or held, the lock) or 0. */
    static boolean flag(String script, Object reply) {
        long value = integer(script, reply);
        if (value != 0 && value != 1) {
            throw unexpected(script, reply);
        }
        return value == 1;
    }

    /** {@code fence.lua}: the holder's fence (> 0), or empty when the token does not hold the lock. */
    static OptionalLong fence(Long reply) {
        long value = integer("fence", reply);
        if (value < 0) {
            throw unexpected("fence", reply);
        }
        return value == 0 ? OptionalLong.empty() : OptionalLong.of(value);
    }

    /**
     * {@code consume-fair.lua}: {1, first tokens of the queue} if the key still holds the token, else {0, {}}.
     *
     * @return the queue's first tokens, or null if the key no longer holds the token
     */
    static List<String> consumed(List<Object> reply) {
        if (reply == null || reply.size() != 2) {
            throw unexpected("consume-fair", reply);
        }
        return flag("consume-fair", reply.get(0))
                ? tokens("consume-fair", reply.get(1)) : null;
    }

    /** {@code renew.lua}: one 1 (renewed) or 0 (lost) per key. */
    static boolean[] renewed(List<Object> reply, int keys) {
        return renewed("renew", reply, keys);
    }

    /** {@code renew.lua} or {@code share-renew.lua}: one 1 (renewed) or 0 (lost) per lease. */
    static boolean[] renewed(String script, List<Object> reply, int leases) {
        if (reply == null || reply.size() != leases) {
            throw unexpected(script, reply);
        }
        boolean[] renewed = new boolean[leases];
        for (int i = 0; i < leases; i++) {
            renewed[i] = flag(script, reply.get(i));
        }
        return renewed;
    }

    /**
     * {@code inspect.lua}: {held 0/1, ms left, last fence, live waiter registrations, holder's token or "", server
     * time in µs, arrival of the longest-waiting queued waiter in µs or -1}.
     */
    static State state(List<Object> reply) {
        if (reply == null || reply.size() != 8) {
            throw unexpected("inspect", reply);
        }
        List<Tokens.Origin> waiting = origins("inspect", reply.get(7));
        boolean held = flag("inspect", reply.get(0));
        String holder = string("inspect", reply.get(4));
        if (held == holder.isEmpty()) {
            throw unexpected("inspect", reply);
        }
        return new State(held, integer("inspect", reply.get(1)), integer("inspect", reply.get(2)),
                (int) integer("inspect", reply.get(3)), holder, integer("inspect", reply.get(5)),
                integer("inspect", reply.get(6)), waiting);
    }

    /**
     * {@code force-release.lua}: the removed holder's fence, -1 if it had none, 0 if the lock was free.
     *
     * @return the removed holder's fence (0 if it had none), empty if the lock was free
     */
    static OptionalLong forceReleased(Long reply) {
        long value = integer("force-release", reply);
        if (value < 0) {
            throw unexpected("force-release", reply);
        }
        return value == 0 ? OptionalLong.empty() : OptionalLong.of(value);
    }

    /**
     * A message on a client's channel that the lock passed to the waiter queued ahead of a quiet waiter of the
     * client ({@code release-queued.lua}).
     *
     * @param token       the quiet waiter's token
     * @param grantMillis the lease of the grant, until its holder renews it
     */
    public record HolderChanged(String token, long grantMillis) {
    }

    /**
     * A message on a client's channel: {@code "+<token>:<grant ms>"}, the lock passed to the waiter ahead of the
     * waiter with that token; or another message ({@link #grant}).
     *
     * @return the message's content, or null for a message of another kind
     */
    public static HolderChanged holderChanged(String message) {
        if (!message.startsWith("+")) {
            return null;
        }
        int colon = message.lastIndexOf(':');
        try {
            if (colon < 2) {
                throw new NumberFormatException("':' expected");
            }
            return new HolderChanged(message.substring(1, colon), Long.parseLong(message.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new UnexpectedReplyException("unexpected message '" + message + "': " + e.getMessage(), e);
        }
    }

    /**
     * A message on a client's channel: a grant ({@link Grant}) or a wake-up, which is the releasing client's id.
     *
     * @return the grant, or null for a wake-up
     */
    public static Grant grant(String message) {
        int first = message.indexOf(':');
        if (first < 0) {
            return null;
        }
        int second = message.indexOf(':', first + 1);
        try {
            if (first == 0 || second < 0) {
                throw new NumberFormatException("two ':' expected");
            }
            return new Grant(message.substring(0, first), Long.parseLong(message.substring(first + 1, second)),
                    Integer.parseInt(message.substring(second + 1)));
        } catch (NumberFormatException e) {
            throw new UnexpectedReplyException("unexpected grant message '" + message + "': " + e.getMessage(), e);
        }
    }

    private static Object single(String script, List<Object> reply) {
        if (reply == null || reply.size() != 1) {
            throw unexpected(script, reply);
        }
        return reply.get(0);
    }

    private static long integer(String script, Object value) {
        if (!(value instanceof Long number)) {
            throw unexpected(script, value);
        }
        return number;
    }

    private static String string(String script, Object value) {
        if (!(value instanceof String text)) {
            throw unexpected(script, value);
        }
        return text;
    }

    private static List<String> tokens(String script, Object value) {
        if (!(value instanceof List<?> items)) {
            throw unexpected(script, value);
        }
        List<String> tokens = new ArrayList<>(items.size());
        for (Object item : items) {
            tokens.add(string(script, item));
        }
        return tokens;
    }

    private static UnexpectedReplyException unexpected(String script, Object reply) {
        return new UnexpectedReplyException("unexpected reply from " + script + ".lua: " + reply, null);
    }
}
