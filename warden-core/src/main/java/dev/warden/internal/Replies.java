package dev.warden.internal;

import dev.warden.LockException;
import dev.warden.LockInfo;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The scripts' replies and the grant message, each decoded once, here, into a typed value, as Lettuce decodes each
 * command in its output type. Nothing else in the engine reads a reply by position or by a magic value. A reply of
 * an unexpected shape (a script of another version, a server that is not Redis) fails with an
 * {@link UnexpectedReplyException} naming the script and the reply, which {@link Errors#translate} turns into a
 * {@link LockException} naming the operation.
 */
final class Replies {
    private Replies() {
    }

    /** A reply of another shape than its script's. */
    static final class UnexpectedReplyException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnexpectedReplyException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** What an acquire script ({@code acquire.lua}, {@code acquire-queued.lua}) answered. */
    sealed interface Acquire permits Acquired, Held {
    }

    /**
     * The lock was acquired.
     *
     * @param fence         the fence issued with it, or 0 when none was (the holder gets one when it first asks)
     * @param grantedMillis the lease the script set, counted from the sending of the try
     */
    record Acquired(long fence, long grantedMillis) implements Acquire {
    }

    /**
     * The lock is held by another token, or free while older waiters come first.
     *
     * @param holderTtlMillis the holder's remaining lease in ms, or -1 when unknown or free
     */
    record Held(long holderTtlMillis) implements Acquire {
    }

    /** What a release where waiters queue ({@code release-queued.lua}) answered. */
    sealed interface Release permits Outcome, GrantedHere {
        /** @return whether the releasing token still held the lock */
        boolean held();
    }

    /** A release's plain outcomes. */
    enum Outcome implements Release {
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
     * @param arm      the number of the waiter's try that registered it (see {@link Acquisition})
     * @param upcoming the first (up to 8) tokens queued behind it
     */
    record GrantedHere(long fence, String token, int arm, List<String> upcoming) implements Release {
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
     */
    record State(boolean held, long leftMillis, long fence, int waiters, String token, long nowMicros,
                 long arrivalMicros) {
        /** How much of the holder's token {@link LockInfo#holder()} shows: enough to tell holders apart. */
        static final int HOLDER_CHARS = 8;
        /**
         * 2020-01-01 in µs: fences are the server's time in µs when issued ({@code next_fence} in lock.lua), so one
         * below this was not issued by Warden on a server with a sane clock, and tells no time.
         */
        static final long FENCE_TIME_FLOOR_MICROS = 1_577_836_800_000_000L;

        /** @return the lock's state for the API, named {@code name} */
        LockInfo info(String name) {
            return new LockInfo(name, held, Duration.ofMillis(leftMillis), fence, waiters, holder(), heldFor(),
                    longestWait());
        }

        /** @return the start of the holder's token, empty when free */
        Optional<String> holder() {
            return held ? Optional.of(token.substring(0, Math.min(HOLDER_CHARS, token.length())))
                    : Optional.empty();
        }

        /**
         * @return how long ago the holder's fence was issued, by the server's clock; empty when free, while the
         *         holder has no fence, or when the fence tells no time (ahead of the server's clock, or too low)
         */
        Optional<Duration> heldFor() {
            return held && fence >= FENCE_TIME_FLOOR_MICROS && fence <= nowMicros
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
    record Grant(String token, long fence, int arm) {
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
        if (reply != null && reply.size() == 3 && Long.valueOf(1L).equals(reply.get(0))) {
            return new Acquired(integer("acquire-queued", reply.get(1)), integer("acquire-queued", reply.get(2)));
        }
        long value = integer("acquire-queued", single("acquire-queued", reply));
        if (value > 0) {
            throw unexpected("acquire-queued", reply);
        }
        return new Held(-1 - value);
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
        if (reply == null || reply.size() != keys) {
            throw unexpected("renew", reply);
        }
        boolean[] renewed = new boolean[keys];
        for (int i = 0; i < keys; i++) {
            renewed[i] = flag("renew", reply.get(i));
        }
        return renewed;
    }

    /**
     * {@code inspect.lua}: {held 0/1, ms left, last fence, live waiter registrations, holder's token or "", server
     * time in µs, arrival of the longest-waiting queued waiter in µs or -1}.
     */
    static State state(List<Object> reply) {
        if (reply == null || reply.size() != 7) {
            throw unexpected("inspect", reply);
        }
        boolean held = flag("inspect", reply.get(0));
        String holder = string("inspect", reply.get(4));
        if (held == holder.isEmpty()) {
            throw unexpected("inspect", reply);
        }
        return new State(held, integer("inspect", reply.get(1)), integer("inspect", reply.get(2)),
                (int) integer("inspect", reply.get(3)), holder, integer("inspect", reply.get(5)),
                integer("inspect", reply.get(6)));
    }

    /**
     * {@code force-release.lua}: the removed holder's fence, -1 if it had none, 0 if the lock was free.
     *
     * @return the removed holder's fence (0 if it had none), empty if the lock was free
     */
    static OptionalLong forceReleased(Long reply) {
        long value = integer("force-release", reply);
        if (value < -1) {
            throw unexpected("force-release", reply);
        }
        return value == 0 ? OptionalLong.empty() : OptionalLong.of(Math.max(value, 0));
    }

    /**
     * A message on a client's channel: a grant ({@link Grant}) or a wake-up, which is the releasing client's id.
     *
     * @return the grant, or null for a wake-up
     */
    static Grant grant(String message) {
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
