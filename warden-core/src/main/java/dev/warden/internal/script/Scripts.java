package dev.warden.internal.script;

import dev.warden.Lease;
import dev.warden.LockInfo;
import dev.warden.LockReplicationException;
import dev.warden.internal.base.Errors;
import dev.warden.internal.wire.Acked;
import dev.warden.internal.wire.Link;
import dev.warden.internal.wire.Replicas;
import dev.warden.internal.wire.Utf8Codec;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.output.ObjectOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lock's Redis operations, each one Lua script called by SHA, but for the plain {@code SET NX} of a first try
 * ({@link #trySet}). When the server does not know a script (after {@code SCRIPT FLUSH} or a restart), it is sent in
 * full once, which also caches it again.
 */
public final class Scripts {
    /** How long a released lock keeps its last fencing token: one day. */
    static final long FENCE_RETENTION_MS = 24L * 60 * 60 * 1000;
    /** Where waiters queue: how long a waiter's registration lives unless the waiter renews it. */
    static final long REGISTRATION_LIFE_MS = 3_000;
    /** How often a queued waiter whose registration is not quiet renews it, well within the registration's life. */
    public static final long REARM_MILLIS = 1_000;
    /** For {@link #acquireQueued}: the waiter registers renewing, never quietly. */
    public static final long RENEWING = -2;

    /** The prelude of every script: the server's clock and a lock key's value ({@code lock.lua}). */
    static final String LOCK = "lock";
    /** The prelude of the scripts of locks whose waiters queue, after {@link #LOCK} ({@code queue.lua}). */
    static final String QUEUE = "queue";

    /** The failing line of a script, in the error Redis answers with. */
    private static final Pattern SCRIPT_LINE = Pattern.compile("@user_script: ?(\\d+)");
    private static final String LIFE = Long.toString(REGISTRATION_LIFE_MS);
    private static final String RETENTION = Long.toString(FENCE_RETENTION_MS);

    private static final Script ACQUIRE = Script.load("acquire", LOCK);
    private static final Script ACQUIRE_QUEUED = Script.load("acquire-queued", LOCK, QUEUE);
    private static final Script RELEASE = Script.load("release", LOCK);
    private static final Script RELEASE_QUEUED = Script.load("release-queued", LOCK, QUEUE);
    private static final Script CONSUME_FAIR = Script.load("consume-fair", LOCK, QUEUE);
    private static final Script HANDED = Script.load("handed", LOCK, QUEUE);
    private static final Script RENEW = Script.load("renew", LOCK);
    private static final Script INSPECT = Script.load("inspect", LOCK, QUEUE);
    private static final Script FORCE_RELEASE = Script.load("force-release", LOCK, QUEUE);
    private static final Script RAISE_FENCE = Script.load("raise-fence", LOCK);
    private static final Script FENCE = Script.load("fence", LOCK);
    private static final Script MULTI_ACQUIRE = Script.load("multi-acquire", LOCK, QUEUE);
    private static final Script REFRESH = Script.load("refresh", LOCK, QUEUE);
    private static final Script HELD = Script.load("held", LOCK);
    private static final List<Script> ALL = List.of(ACQUIRE, ACQUIRE_QUEUED, RELEASE, RELEASE_QUEUED,
            CONSUME_FAIR, HANDED, RENEW, INSPECT, FORCE_RELEASE, RAISE_FENCE, FENCE, MULTI_ACQUIRE, REFRESH, HELD);

    private final Link link;
    private final String publish;
    /**
     * The SHAs of the {@link #runSettling settling} scripts which this link's server is known to hold: a
     * {@code SCRIPT LOAD} of each answered, and no {@code NOSCRIPT} came since. Empty in a cluster.
     */
    private final Set<String> loaded = ConcurrentHashMap.newKeySet();
    /** The SHAs of those whose {@code SCRIPT LOAD} is on its way. */
    private final Set<String> loading = ConcurrentHashMap.newKeySet();

    /** Every script, each with its preludes. */
    static List<Script> all() {
        return ALL;
    }

    /**
     * @param link the connections: the shared one for plain operations, the acknowledgement connection for
     *             operations followed by {@code WAIT} (which blocks its connection until the replicas answer); it
     *             is told of every failure, and whether releases publish with {@code SPUBLISH} (Redis 7 cluster)
     */
    public Scripts(Link link) {
        this.link = link;
        this.publish = link.sharded() ? "SPUBLISH" : "PUBLISH";
    }

    /** @return the command that announces grants and wake-ups: PUBLISH, or SPUBLISH in a Redis 7 cluster */
    String publish() {
        return publish;
    }

    /**
     * @return whether the server that runs a lock's scripts counts every receiver of its grant channels, so that its
     *         waiters may register quietly ({@code queue.lua}): a single server, or a Redis 7 cluster's sharded
     *         pub/sub; not Sentinel, whose pub/sub connection may be on a replica, nor a cluster's plain PUBLISH,
     *         which counts the receivers on one node only
     */
    public boolean receiversCounted() {
        return link.receiversCounted();
    }

    /** What a try is to its acquisition, which decides what the acquire script does with the waiters. */
    public enum Try {
        /** The only try: never registers as a waiter. */
        ONCE("0"),
        /** A waiter's first try: registers when the lock is held. */
        FIRST("1"),
        /** A waiter's later try: registers when held, and leaves the waiters (where it may be) when it acquires. */
        AGAIN("2");

        private final String arg;

        Try(String arg) {
            this.arg = arg;
        }

        /** @return the scripts' argument for this kind of try */
        String arg() {
            return arg;
        }

        /** @return {@link #ONCE} for an acquisition that does not wait, else FIRST or AGAIN by {@code tried} */
        public static Try of(boolean waits, boolean tried) {
            return !waits ? ONCE : tried ? AGAIN : FIRST;
        }
    }

    /**
     * The acquire where waiters do not queue: acquired (with a fence, or without one that the holder gets when it
     * asks, {@link #fence}) or held. The script answers with a plain integer rather than a list: the uncontended
     * path is the one every lock pays for. The holder gets its fence when it first asks.
     */
    public CompletableFuture<Replies.Acquire> acquire(LockKeys keys, String token, long leaseMillis, Try kind) {
        return acquire(keys, token, leaseMillis, kind, false);
    }

    /**
     * As {@link #acquire}, with a fence issued at once even where the key is missing, and by {@code EVAL} with the
     * script's text: for a quorum, which decides a try without the servers that have not answered yet and gives its
     * grants back there at once. By SHA, a server that lost its scripts (restarted, flushed) would answer
     * {@code NOSCRIPT}, and the acquire, sent again, would run behind that give-back: the lock granted to nobody for a
     * whole lease.
     */
    public CompletableFuture<Replies.Acquire> acquireInOrder(LockKeys keys, String token, long leaseMillis, Try kind) {
        return acquire(keys, token, leaseMillis, kind, true);
    }

    /** The acquire of locks whose waiters do not queue; a quorum's ({@code fencedInOrder}) fenced and in order. */
    private CompletableFuture<Replies.Acquire> acquire(LockKeys keys, String token, long leaseMillis, Try kind,
                                                       boolean fencedInOrder) {
        return this.<Long>run(ACQUIRE, fencedInOrder, ScriptOutputType.INTEGER,
                        new String[] {keys.lock(), keys.waiters()}, token, Long.toString(leaseMillis), kind.arg,
                        fencedInOrder ? "1" : "0")
                .thenApply(reply -> Replies.acquire(reply, leaseMillis));
    }

    /** As {@link #acquire} with a fence issued at once, followed in the same round trip by {@code WAIT}. */
    public CompletableFuture<Acked<Replies.Acquire>> acquire(LockKeys keys, String token, long leaseMillis, Try kind,
                                                      Replicas replicas) {
        return this.<Long>runAcked(ACQUIRE, ScriptOutputType.INTEGER, new String[] {keys.lock(), keys.waiters()},
                replicas, token, Long.toString(leaseMillis), kind.arg, "1")
                .thenApply(acked -> new Acked<>(Replies.acquire(acked.reply(), leaseMillis), acked.acks()));
    }

    /**
     * A first try that costs Redis no script: {@code SET key ":<token>" NX PX lease}, the value of a lock held
     * without a fence. Completes with "OK" when acquired, or null when the key exists, which is either held or free
     * with a fence to carry on: only {@link #acquire} can tell.
     */
    public CompletableFuture<String> trySet(LockKeys keys, String token, long leaseMillis) {
        return reported(link.commands().set(keys.lock(), ":" + token, SetArgs.Builder.nx().px(leaseMillis)));
    }

    /**
     * Returns the fence of a lock this token holds, issuing it now if the lease was acquired without one, or has
     * one no higher than {@code above}: the predecessor's fence, where the lease took the lock over locally from
     * one that had a fence, else 0; empty if the token does not hold the lock.
     */
    public CompletableFuture<OptionalLong> fence(LockKeys keys, String token, long above) {
        return this.<Long>run(FENCE, ScriptOutputType.INTEGER, new String[] {keys.lock()}, token,
                Long.toString(above)).thenApply(Replies::fence);
    }

    /** Whether the lock's key carries this token ({@code held.lua}), changing nothing: for {@link Lease#confirm}. */
    public CompletableFuture<Boolean> held(LockKeys keys, String token) {
        return this.<Long>run(HELD, ScriptOutputType.INTEGER, new String[] {keys.lock()}, token)
                .thenApply(reply -> Replies.flag("held", reply));
    }

    /**
     * After a local handover in the default mode: removes the waiter's registration from the queue and answers
     * whether the key still holds the holder's token (which the waiter now uses).
     */
    public CompletableFuture<Boolean> handed(LockKeys keys, String holder, String waiter) {
        return this.<Long>runSettling(HANDED, ScriptOutputType.INTEGER,
                new String[] {keys.lock(), keys.queue(), keys.registrations()}, holder, waiter)
                .thenApply(reply -> Replies.flag("handed", reply));
    }

    /**
     * The acquire where waiters queue ({@code RedisLock#queued}): a waiter joins the lock's queue, and a free lock
     * goes to the queue's oldest live waiter. Acquired (also when a release granted the lock to this token
     * already, with the lease left), or held (the holder's TTL, or -1 when the lock is free but older waiters come
     * first; the script answers that with a plain integer, which costs Redis far less than a list).
     *
     * @param arm         the number of this attempt, which a release that grants the lock names
     * @param grantMillis the lease a release grants this waiter
     * @param clientId    the calling client's id: a release by the same client announces no grant to it
     * @param fenced      whether to issue a fence even where the key is missing (fair mode does)
     * @param quietWait   where the waiter may register quietly (its client's grant channel is subscribed, or its
     *                    subscription on its way, and {@link #receiversCounted}): the ms left of its wait, -1 for
     *                    no limit; else {@link #RENEWING}
     */
    public CompletableFuture<Replies.Acquire> acquireQueued(LockKeys keys, String token, long leaseMillis, Try kind,
                                                     int arm, long grantMillis, String clientId, boolean fenced,
                                                     long quietWait) {
        String[] args = {token, Long.toString(leaseMillis), kind.arg, Integer.toString(arm),
            Long.toString(grantMillis), LIFE, clientId, fenced ? "1" : "0", keys.channel(), publish,
            Long.toString(quietWait)};
        return this.<List<Object>>run(ACQUIRE_QUEUED, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.queue(), keys.registrations()},
                quietWait == RENEWING ? java.util.Arrays.copyOf(args, 10) : args).thenApply(Replies::acquireQueued);
    }

    /**
     * Renews the quiet registrations of several waiters of this client for one lock in one step, while another holds
     * it ({@code refresh.lua}): for each, what its own try would do then, in one request for all.
     *
     * @param waiters what each waiter's own try would renew
     */
    public CompletableFuture<Replies.Refreshed> refresh(LockKeys keys, String clientId, List<QuietRenewal> waiters) {
        List<String> args = new java.util.ArrayList<>(4 + 4 * waiters.size());
        args.addAll(List.of(keys.channel(), publish, clientId, LIFE));
        waiters.forEach(waiter -> args.addAll(waiter.arguments()));
        return this.<List<Object>>run(REFRESH, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.queue(), keys.registrations()}, args.toArray(String[]::new))
                .thenApply(reply -> Replies.refresh(reply, waiters.size()));
    }

    /**
     * Takes several locks of one slot in one step, all or none ({@code multi-acquire.lua}): each is taken only if it
     * is free and nobody waits for it.
     *
     * @param tokens one token per lock, in the order of {@code locks}
     * @param fenced whether to issue fences even where a key is missing
     */
    public CompletableFuture<Replies.MultiAcquire> multiAcquire(List<LockKeys> locks, List<String> tokens,
                                                          long leaseMillis, boolean fenced) {
        String[] keys = new String[locks.size() * 3];
        String[] args = new String[locks.size() + 2];
        for (int i = 0; i < locks.size(); i++) {
            keys[3 * i] = locks.get(i).lock();
            keys[3 * i + 1] = locks.get(i).queue();
            keys[3 * i + 2] = locks.get(i).registrations();
            args[i] = tokens.get(i);
        }
        args[locks.size()] = Long.toString(leaseMillis);
        args[locks.size() + 1] = fenced ? "1" : "0";
        return this.<List<Object>>run(MULTI_ACQUIRE, ScriptOutputType.MULTI, keys, args)
                .thenApply(reply -> Replies.multiAcquire(reply, locks.size()));
    }

    /** Answers whether the token still owned the lock (and released it) where waiters do not queue. */
    public CompletableFuture<Boolean> release(LockKeys keys, String token, String message) {
        return release(keys, token, message, false);
    }

    /**
     * As {@link #release}, by {@code EVAL} with the script's text when {@code inOrder}: a quorum's give-back, which
     * its next try may follow at once; by SHA, a {@code NOSCRIPT} would send it again behind that try, and it would
     * take the try's grant back (same token).
     */
    public CompletableFuture<Boolean> release(LockKeys keys, String token, String message, boolean inOrder) {
        return this.<Long>run(RELEASE, inOrder, ScriptOutputType.INTEGER, new String[] {keys.lock(), keys.waiters()},
                token, RETENTION, keys.channel(), message, publish).thenApply(reply -> Replies.flag("release", reply));
    }

    /**
     * The release where waiters queue: also removes the token from the queue (for a waiter that gives up), registers
     * waiters of this client (the releasing one, whose id is {@code message}) behind the queue, and grants the lock
     * to the oldest live waiter; {@code riders} are the waiters to register, if any.
     * Answers {@link Replies.Release}: released, not held, granted to a waiter of another client (the script answers
     * these with a plain integer, which costs Redis far less than a list), or granted to a waiter of this client.
     */
    public CompletableFuture<Replies.Release> releaseQueued(LockKeys keys, String token, String message,
                                                     List<Registration> riders) {
        return releaseQueued(keys, token, message, riders, Function.identity());
    }

    /**
     * As {@link #releaseQueued(LockKeys, String, String, List)}, with {@code handling} attached to the decoded
     * reply before the script is sent: it then runs on the connection's I/O thread as the answer comes, before any
     * later answer is handled. A grant to a waiter of this client needs that: handled later, the waiter's own try
     * (sent after this release, so answered after it) could have found the grant and made its lease first.
     *
     * @param handling what to do with the reply; its result is what this returns
     */
    public <R> CompletableFuture<R> releaseQueued(LockKeys keys, String token, String message,
            List<Registration> riders, Function<CompletableFuture<Replies.Release>, CompletableFuture<R>> handling) {
        String[] args = withRegistrations(riders, token, RETENTION, keys.channel(), message, publish, LIFE);
        return this.<List<Object>, R>runHandled(RELEASE_QUEUED, ScriptOutputType.MULTI, new String[] {keys.lock(),
            keys.waiters(), keys.queue(), keys.registrations()}, args,
                reply -> handling.apply(reply.thenApply(Replies::releaseQueued)));
    }

    /**
     * Fair mode, after a waiter of this client took the lock over from {@code holder} without a request (keeping
     * that token): removes the waiter's registration, registers {@code riders} (as {@link #releaseQueued} does) and
     * answers the first (up to 8) tokens of the queue if the key still holds the token, else null.
     */
    public CompletableFuture<List<String>> consumeFair(LockKeys keys, String holder, String waiter, String clientId,
                                                List<Registration> riders) {
        String[] args = withRegistrations(riders, holder, waiter, clientId, LIFE);
        return this.<List<Object>>runSettling(CONSUME_FAIR, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.queue(), keys.registrations()}, args).thenApply(Replies::consumed);
    }

    /** @return {@code first}, then each registration's arguments in the order the scripts read them */
    private static String[] withRegistrations(List<Registration> registrations, String... first) {
        List<String> args = new java.util.ArrayList<>(first.length + 3 * registrations.size());
        args.addAll(List.of(first));
        registrations.forEach(registration -> args.addAll(registration.arguments()));
        return args.toArray(String[]::new);
    }

    /** Answers, per key, whether it was renewed; {@code args} holds a token and a lease in ms per key. */
    public CompletableFuture<boolean[]> renew(List<Renewal<LockKeys>> batch) {
        String[] keys = renewedKeys(batch);
        return this.<List<Object>>run(RENEW, ScriptOutputType.MULTI, keys, renewedArgs(batch))
                .thenApply(reply -> Replies.renewed(reply, keys.length));
    }

    /** As {@link #renew}, followed in the same round trip by {@code WAIT}. */
    public CompletableFuture<Acked<boolean[]>> renew(List<Renewal<LockKeys>> batch, Replicas replicas) {
        String[] keys = renewedKeys(batch);
        return this.<List<Object>>runAcked(RENEW, ScriptOutputType.MULTI, keys, replicas, renewedArgs(batch))
                .thenApply(acked -> new Acked<>(Replies.renewed(acked.reply(), keys.length), acked.acks()));
    }

    /**
     * Sets the expiry of a lock this token holds to {@code millis} from now ({@code renew.lua} with one key); false
     * if the token does not hold it. Where replicas must acknowledge, a change too few acknowledged fails with
     * {@link LockReplicationException}: a failover then would bring back the older expiry.
     */
    public CompletableFuture<Boolean> expire(LockKeys keys, String token, long millis, Replicas replicas) {
        String[] key = {keys.lock()};
        String ms = Long.toString(millis);
        if (!replicas.required()) {
            return this.<List<Object>>run(RENEW, ScriptOutputType.MULTI, key, ms, token)
                    .thenApply(reply -> Replies.renewed(reply, 1)[0]);
        }
        return this.<List<Object>>runAcked(RENEW, ScriptOutputType.MULTI, key, replicas, ms, token).thenApply(acked -> {
            if (acked.acks() < replicas.count()) {
                throw new LockReplicationException("expiry change acknowledged by " + acked.acks() + " of "
                        + replicas.count() + " replicas", (int) acked.acks(), replicas.count());
            }
            return Replies.renewed(acked.reply(), 1)[0];
        });
    }

    private static String[] renewedKeys(List<Renewal<LockKeys>> batch) {
        String[] keys = new String[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            keys[i] = batch.get(i).keys().lock();
        }
        return keys;
    }

    /**
     * The tokens and lease ms as {@code renew.lua} takes them: the lease once and then each token where every lease
     * of the batch has the same length, else "" and then each token with its lease.
     */
    static String[] renewedArgs(List<Renewal<LockKeys>> batch) {
        long millis = batch.get(0).millis();
        boolean same = batch.stream().allMatch(renewal -> renewal.millis() == millis);
        if (same) {
            String[] args = new String[batch.size() + 1];
            args[0] = Long.toString(millis);
            for (int i = 0; i < batch.size(); i++) {
                args[i + 1] = batch.get(i).token();
            }
            return args;
        }
        String[] args = new String[batch.size() * 2 + 1];
        args[0] = "";
        for (int i = 0; i < batch.size(); i++) {
            args[2 * i + 1] = batch.get(i).token();
            args[2 * i + 2] = Long.toString(batch.get(i).millis());
        }
        return args;
    }

    /**
     * Raises the fence of a lock this token holds to {@code fence} (quorum locks agree on the highest fence of
     * their servers); answers whether the token holds the lock.
     */
    public CompletableFuture<Boolean> raiseFence(LockKeys keys, String token, long fence) {
        return this.<Long>run(RAISE_FENCE, ScriptOutputType.INTEGER, new String[] {keys.lock()}, token,
                Long.toString(fence)).thenApply(reply -> Replies.flag("raise-fence", reply));
    }

    /**
     * Reads the lock's state, counting its waiters of both kinds (queued, and those of locks that do not queue):
     * clients of either kind may wait on one name.
     */
    public CompletableFuture<Replies.State> inspect(LockKeys keys) {
        return this.<List<Object>>run(INSPECT, ScriptOutputType.MULTI,
                new String[] {keys.lock(), keys.waiters(), keys.registrations(), keys.queue()},
                Integer.toString(LockInfo.WAITING_SHOWN)).thenApply(Replies::state);
    }

    /**
     * Writes a client's whole identity record ({@code IdentityRecord}), living {@code lifeMillis}: one
     * {@code SET ... PX}, atomic with its expiry.
     */
    public CompletableFuture<Void> writeIdentity(String key, String value, long lifeMillis) {
        return link.commands().set(key, value, SetArgs.Builder.px(lifeMillis)).toCompletableFuture()
                .<Void>thenApply(reply -> null).exceptionallyCompose(error -> {
                    link.failed(error);
                    return CompletableFuture.failedFuture(Errors.unwrap(error));
                });
    }

    /** Deletes a client's identity record. */
    public CompletableFuture<Void> deleteIdentity(String key) {
        return link.commands().del(key).toCompletableFuture().<Void>thenApply(reply -> null)
                .exceptionallyCompose(error -> {
                    link.failed(error);
                    return CompletableFuture.failedFuture(Errors.unwrap(error));
                });
    }

    /** Reads a client's identity record: its fields, empty where there is none. */
    public CompletableFuture<Map<String, String>> readIdentity(String key) {
        return link.commands().get(key).toCompletableFuture().thenApply(IdentityCodec::decode)
                .exceptionallyCompose(error -> {
                    link.failed(error);
                    return CompletableFuture.failedFuture(Errors.unwrap(error));
                });
    }

    /**
     * Answers the removed holder's fence (0 if it had none), or empty if the lock was free; wakes the waiters,
     * queued ({@code RedisLock#queued}) or not.
     */
    public CompletableFuture<OptionalLong> forceRelease(LockKeys keys, String message, boolean queued) {
        return this.<Long>run(FORCE_RELEASE, ScriptOutputType.INTEGER, queued
                ? new String[] {keys.lock(), keys.queue(), keys.registrations()}
                : new String[] {keys.lock(), keys.waiters()},
                RETENTION, keys.channel(), message, publish).thenApply(Replies::forceReleased);
    }

    /**
     * Runs a script as {@link #run} does, followed by {@code WAIT} on the same connection: the acknowledgement
     * connection to the server that holds the keys ({@link Link#acked}), in a cluster the slot's master.
     */
    <T> CompletableFuture<Acked<T>> runAcked(Script script, ScriptOutputType type, String[] keys,
                                                     Replicas replicas, String... args) {
        return link.acked(keys[0], commands -> runAcked(commands, script, type, keys, replicas, args));
    }

    private <T> CompletableFuture<Acked<T>> runAcked(RedisClusterAsyncCommands<String, String> commands,
                                                     Script script, ScriptOutputType type, String[] keys,
                                                     Replicas replicas, String... args) {
        // Sent back to back on one connection: WAIT counts the acknowledgements of the script's writes.
        CompletableFuture<T> reply = commands.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
        CompletableFuture<Long> acks = commands.waitForReplication(replicas.count(), replicas.timeoutMillis())
                .toCompletableFuture();
        return reply.handle((value, error) -> {
            if (error == null) {
                return acks.thenApply(count -> new Acked<>(value, count));
            }
            link.failed(error);
            forgetOnNoScript(error);
            if (Errors.unwrap(error) instanceof RedisNoScriptException) {
                // Sent again once the WAIT behind the refused script has answered: that WAIT blocks the connection
                // for up to its timeout, which would otherwise count against the new WAIT's command timeout too
                // (two timeouts of 1 s each overran a command timeout of 2 s).
                return acks.handle((count, waitError) -> null).thenCompose(answered -> {
                    CompletableFuture<T> again = commands.<T>eval(script.source(), type, keys, args)
                            .toCompletableFuture().exceptionallyCompose(retryError ->
                                    CompletableFuture.failedFuture(named(script, retryError)));
                    CompletableFuture<Long> againAcks = commands.waitForReplication(replicas.count(),
                            replicas.timeoutMillis()).toCompletableFuture();
                    return again.thenCombine(againAcks, Acked::new);
                });
            }
            return CompletableFuture.<Acked<T>>failedFuture(named(script, error));
        }).thenCompose(Function.identity());
    }

    /** A plain command's reply, whose failure is reported to the link as a script's is ({@link #run}). */
    private <T> CompletableFuture<T> reported(RedisFuture<T> reply) {
        return reply.toCompletableFuture().whenComplete((value, error) -> {
            if (error != null) {
                link.failed(error);
            }
        });
    }

    /**
     * Runs a script with {@code EVAL} and its source rather than by SHA: a {@code NOSCRIPT} answer (after a restart
     * or a {@code SCRIPT FLUSH}) would send it again behind requests sent after it. A quorum's tries and give-backs
     * go so; the scripts that settle a local handover go by {@link #runSettling}.
     */
    <T> CompletableFuture<T> runInOrder(Script script, ScriptOutputType type, String[] keys,
                                                String... args) {
        return link.commands().<T>eval(script.source(), type, keys, args).toCompletableFuture()
                .exceptionallyCompose(error -> {
                    link.failed(error);
                    return CompletableFuture.failedFuture(named(script, error));
                });
    }

    /**
     * Runs a script that settles a local handover, which must reach Redis before any request of the new holder: a
     * {@code NOSCRIPT} answer must not send it again behind those, as {@link #run} would. So it goes by SHA only once
     * this link's server is known to hold it ({@link #loaded}), and a {@code NOSCRIPT} answer then fails it, as any
     * failed request (a share's takers are lost, and Redis keeps the share until the old lease's end; a mutex's taker
     * holds on, under the token the key still holds). Until then it goes by {@code EVAL} with its source, which Redis
     * hashes on every call (about 50 us of Redis CPU for {@code share-handed.lua}'s 8 KB on Redis 7.0 here, more than
     * the script's own work), while a {@code SCRIPT LOAD} of it is sent once (not left to {@code EVAL}, since Redis 7.4
     * may evict a script that {@code EVAL} loaded). Always by {@code EVAL} in a cluster, where each node has scripts
     * of its own.
     */
    <T> CompletableFuture<T> runSettling(Script script, ScriptOutputType type, String[] keys, String... args) {
        boolean bySha = loaded.contains(script.sha());
        CompletableFuture<T> answered = new CompletableFuture<>();
        this.<T>send(bySha ? CommandType.EVALSHA : CommandType.EVAL, bySha ? script.sha() : script.source(), type,
                keys, args, answered, (reply, error) -> {
                    if (error == null) {
                        answered.complete(reply);
                        return;
                    }
                    link.failed(error);
                    forgetOnNoScript(error);
                    answered.completeExceptionally(named(script, error));
                });
        if (!bySha) {
            load(script);
        }
        return answered;
    }

    /** Sends a {@code SCRIPT LOAD} of a {@link #runSettling settling} script, once at a time, outside a cluster. */
    private void load(Script script) {
        if (link.cluster() || !loading.add(script.sha())) {
            return;
        }
        try {
            link.commands().scriptLoad(script.source()).whenComplete((sha, error) -> {
                loading.remove(script.sha());
                if (error == null && script.sha().equals(sha)) {
                    loaded.add(sha);
                } else if (error != null) {
                    // Its scripts go by EVAL meanwhile; the next one sends the load again.
                    link.failed(error);
                }
            });
        } catch (RuntimeException e) {
            loading.remove(script.sha());
        }
    }

    /** After a {@code NOSCRIPT} answer (a restart, a failover, a {@code SCRIPT FLUSH}), no script is known loaded. */
    private void forgetOnNoScript(Throwable error) {
        if (Errors.unwrap(error) instanceof RedisNoScriptException) {
            loaded.clear();
        }
    }

    /** Runs a script {@link #runInOrder in order} or {@link #run by SHA}. */
    private <T> CompletableFuture<T> run(Script script, boolean inOrder, ScriptOutputType type, String[] keys,
                                         String... args) {
        return inOrder ? runInOrder(script, type, keys, args) : run(script, type, keys, args);
    }

    /**
     * Runs a script by SHA, sending its source once if the server does not know it; every failure is told to the
     * link.
     */
    <T> CompletableFuture<T> run(Script script, ScriptOutputType type, String[] keys, String... args) {
        return runHandled(script, type, keys, args, Function.identity());
    }

    /**
     * As {@link #run}, with {@code handling} attached to the answer before the command is sent ({@link Link#dispatch}):
     * it runs as the answer is read, in the order of the connection's answers. After a {@code NOSCRIPT} answer the
     * script's text goes as a command of the same kind, which completes the same answer, so the retry's handling is
     * in place before it is sent, too.
     */
    private <T, R> CompletableFuture<R> runHandled(Script script, ScriptOutputType type, String[] keys, String[] args,
            Function<CompletableFuture<T>, CompletableFuture<R>> handling) {
        CompletableFuture<T> answered = new CompletableFuture<>();
        CompletableFuture<R> handled = handling.apply(answered);
        this.<T>send(CommandType.EVALSHA, script.sha(), type, keys, args, answered, (reply, error) -> {
            if (error == null) {
                answered.complete(reply);
                return;
            }
            link.failed(error);
            forgetOnNoScript(error);
            if (Errors.unwrap(error) instanceof RedisNoScriptException) {
                this.<T>send(CommandType.EVAL, script.source(), type, keys, args, answered, (again, failure) -> {
                    if (failure == null) {
                        answered.complete(again);
                    } else {
                        answered.completeExceptionally(named(script, failure));
                    }
                });
            } else {
                answered.completeExceptionally(named(script, error));
            }
        });
        return handled;
    }

    /**
     * Sends {@code EVALSHA} or {@code EVAL} of {@code script} (its SHA or text) with {@code then} attached first; a
     * command refused before it is sent (a full request queue) tells {@code then} so, as a failed answer would. If
     * {@code then} throws, {@code answered} fails with that.
     */
    private <T> void send(CommandType command, String script, ScriptOutputType type, String[] keys, String[] args,
                          CompletableFuture<T> answered, BiConsumer<T, Throwable> then) {
        CommandArgs<String, String> arguments = new CommandArgs<>(Utf8Codec.INSTANCE).add(script).add(keys.length)
                .addKeys(keys).addValues(args);
        AsyncCommand<String, String, T> sent = new AsyncCommand<>(new Command<>(command, output(type), arguments));
        sent.whenComplete((reply, error) -> {
            try {
                then.accept(reply, error);
            } catch (RuntimeException | Error e) {
                answered.completeExceptionally(e);
            }
        });
        try {
            link.dispatch(sent);
        } catch (RuntimeException e) {
            sent.completeExceptionally(e);
        }
    }

    /** What reads a script's answer of that type: as Lettuce's own {@code EVAL} and {@code EVALSHA} read it. */
    @SuppressWarnings("unchecked")
    private static <T> CommandOutput<String, String, T> output(ScriptOutputType type) {
        Utf8Codec codec = Utf8Codec.INSTANCE;
        return (CommandOutput<String, String, T>) switch (type) {
            case BOOLEAN -> new BooleanOutput<>(codec);
            case INTEGER -> new IntegerOutput<>(codec);
            case STATUS -> new StatusOutput<>(codec);
            case MULTI -> new NestedMultiOutput<>(codec);
            case VALUE -> new ValueOutput<>(codec);
            case OBJECT -> new ObjectOutput<>(codec);
        };
    }

    /**
     * A script's failure with the command at its failing line named. When an ACL refuses a command (or a channel)
     * inside a script, Redis says only "The user executing the script can't run this command or subcommand" and
     * the line ({@code ... on @user_script:49.}, or {@code @user_script:49: ...} before Redis 7), so the user
     * would not learn which right is missing; other errors that carry a line gain the command as well.
     */
    private Throwable named(Script script, Throwable error) {
        Throwable cause = Errors.unwrap(error);
        // The plain type only: the others (NOSCRIPT, BUSY, READONLY...) name their cause themselves.
        if (cause.getClass() != RedisCommandExecutionException.class || cause.getMessage() == null) {
            return error;
        }
        Matcher line = SCRIPT_LINE.matcher(cause.getMessage());
        if (!line.find()) {
            return error;
        }
        return script.commandsAt(Integer.parseInt(line.group(1)), publish)
                .<Throwable>map(commands -> new RedisCommandExecutionException(cause.getMessage() + " (line "
                        + line.group(1) + " of script " + script.name() + " calls " + commands + ")", cause))
                .orElse(error);
    }
}
