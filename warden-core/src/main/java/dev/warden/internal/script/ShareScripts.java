package dev.warden.internal.script;

import dev.warden.LockInfo;
import dev.warden.internal.wire.Acked;
import dev.warden.internal.wire.Replicas;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * The Redis operations of shared locks (semaphores and read-write locks, {@code share.lua}), each one Lua script
 * run through the lock scripts' {@link Scripts#run}, decoded by {@link Replies}.
 */
public final class ShareScripts {
    private static final String SHARE = "share";
    private static final String LIFE = Long.toString(Scripts.REGISTRATION_LIFE_MS);
    private static final String RETENTION = Long.toString(Scripts.FENCE_RETENTION_MS);

    private static final Script ACQUIRE = Script.load("share-acquire", Scripts.LOCK, Scripts.QUEUE, SHARE);
    private static final Script RELEASE = Script.load("share-release", Scripts.LOCK, Scripts.QUEUE, SHARE);
    private static final Script HANDED = Script.load("share-handed", Scripts.LOCK, Scripts.QUEUE, SHARE);
    private static final Script RENEW = Script.load("share-renew", Scripts.LOCK, SHARE);
    private static final Script INSPECT = Script.load("share-inspect", Scripts.LOCK, Scripts.QUEUE, SHARE);
    private static final Script FORCE_RELEASE = Script.load("share-force-release", Scripts.LOCK, Scripts.QUEUE,
            SHARE);
    private static final Script HELD = Script.load("share-held", Scripts.LOCK);
    private static final Script RESIZE = Script.load("share-resize", Scripts.LOCK, Scripts.QUEUE, SHARE);
    private static final List<Script> ALL = List.of(ACQUIRE, RELEASE, HANDED, RENEW, INSPECT, FORCE_RELEASE, HELD,
            RESIZE);

    /** Which holders a forced release removes. */
    public enum Holders {
        ALL("all"),
        /** Holders of the whole capacity: a read-write lock's writer. */
        WHOLE("whole"),
        /** The others: a read-write lock's readers. */
        PART("part");

        final String arg;

        Holders(String arg) {
            this.arg = arg;
        }
    }

    private final Scripts scripts;

    public ShareScripts(Scripts scripts) {
        this.scripts = scripts;
    }

    /** Every script, each with its preludes. */
    static List<Script> all() {
        return ALL;
    }

    /**
     * One try: acquired (also when a release lent to this token already), or not (with how long until the first
     * holder's lease ends, where known, and where the try joined the queue its place).
     *
     * @param companion a token of this client's that holds the whole capacity (a writer taking the read lock), or
     *                  the empty string
     */
    public CompletableFuture<Replies.ShareTry> acquire(ShareKeys keys, ShareKeys.Kind kind, long capacity, String token,
                                               long permits, long leaseMillis, Scripts.Try tryKind, int arm,
                                               long grantMillis, String clientId, String companion) {
        return scripts.<List<Object>>run(ACQUIRE, ScriptOutputType.MULTI, keys.all(), token,
                Long.toString(leaseMillis), tryKind.arg(), Integer.toString(arm), Long.toString(grantMillis), LIFE,
                clientId, Long.toString(permits), Long.toString(capacity), kind.arg, companion, RETENTION,
                keys.channel(), scripts.publish()).thenApply(Replies::shareAcquire);
    }

    /**
     * Releases the token's share, lending it on; answers whether the token held one, and the grants it made to
     * waiters of the client {@code clientId}, which it names in its reply rather than publishing them.
     */
    public CompletableFuture<Replies.ShareReleased> release(ShareKeys keys, ShareKeys.Kind kind, String token,
                                                     String clientId) {
        return scripts.<List<Object>>run(RELEASE, ScriptOutputType.MULTI, keys.all(), token, kind.arg, RETENTION,
                keys.channel(), scripts.publish(), clientId).thenApply(Replies::shareRelease);
    }

    /**
     * After a local handover: moves the holder's share to the tokens of the waiters that took it over
     * ({@code share-handed.lua}), sent so that it reaches Redis before any request of a new holder
     * ({@link Scripts#runSettling}).
     *
     * @param clientId the client's id, whose waiters they all are
     * @param waiters  each waiter's token and permits
     * @return the waiters' fences, in their order, or empty if the holder's token held nothing any more
     */
    public CompletableFuture<Optional<long[]>> handed(ShareKeys keys, ShareKeys.Kind kind, String holder,
                                                      String clientId,
                                               List<Map.Entry<String, Long>> waiters) {
        String[] args = new String[6 + 2 * waiters.size()];
        args[0] = holder;
        args[1] = kind.arg;
        args[2] = RETENTION;
        args[3] = keys.channel();
        args[4] = scripts.publish();
        args[5] = clientId;
        for (int i = 0; i < waiters.size(); i++) {
            args[6 + 2 * i] = waiters.get(i).getKey();
            args[7 + 2 * i] = Long.toString(waiters.get(i).getValue());
        }
        return scripts.<List<Object>>runSettling(HANDED, ScriptOutputType.MULTI, keys.all(), args)
                .thenApply(reply -> Replies.shareHanded(reply, waiters.size()));
    }

    /** Answers, per lease, whether it was renewed for its lease ms. */
    CompletableFuture<boolean[]> renew(List<Renewal<ShareKeys>> batch) {
        return renew(batch, Replicas.NONE).thenApply(Acked::reply);
    }

    /** As {@link #renew(List)}, followed by {@code WAIT} where {@code replicas} are required. */
    public CompletableFuture<Acked<boolean[]>> renew(List<Renewal<ShareKeys>> batch, Replicas replicas) {
        String[] keys = new String[batch.size() * 2];
        String[] args = new String[batch.size() * 2 + 1];
        for (int i = 0; i < batch.size(); i++) {
            Renewal<ShareKeys> renewal = batch.get(i);
            keys[2 * i] = renewal.keys().state();
            keys[2 * i + 1] = renewal.keys().holders();
            args[2 * i] = renewal.token();
            args[2 * i + 1] = Long.toString(renewal.millis());
        }
        args[args.length - 1] = RETENTION;
        if (replicas.required()) {
            return scripts.<List<Object>>runAcked(RENEW, ScriptOutputType.MULTI, keys, replicas, args)
                    .thenApply(acked -> new Acked<>(Replies.renewed("share-renew", acked.reply(), batch.size()),
                            acked.acks()));
        }
        return scripts.<List<Object>>run(RENEW, ScriptOutputType.MULTI, keys, args)
                .thenApply(reply -> new Acked<>(Replies.renewed("share-renew", reply, batch.size()), 0));
    }

    /** Sets the end of one share's lease to {@code millis} from now; false if the token holds no share. */
    public CompletableFuture<Boolean> expire(ShareKeys keys, String token, long millis) {
        return scripts.<List<Object>>run(RENEW, ScriptOutputType.MULTI, new String[] {keys.state(), keys.holders()},
                token, Long.toString(millis), RETENTION)
                .thenApply(reply -> Replies.renewed("share-renew", reply, 1)[0]);
    }

    /**
     * {@link #expire} followed by {@code WAIT}: its write (the keys' expiry, which always replicates) comes after every
     * earlier write to the share, a grant by another client's release included, so the acknowledgements count for
     * those too.
     */
    public CompletableFuture<Acked<Boolean>> expire(ShareKeys keys, String token, long millis, Replicas replicas) {
        return scripts.<List<Object>>runAcked(RENEW, ScriptOutputType.MULTI,
                new String[] {keys.state(), keys.holders()}, replicas, token, Long.toString(millis), RETENTION)
                .thenApply(acked -> new Acked<>(Replies.renewed("share-renew", acked.reply(), 1)[0], acked.acks()));
    }

    /** Whether the token holds a share whose lease has not ended ({@code share-held.lua}), changing nothing. */
    public CompletableFuture<Boolean> held(ShareKeys keys, String token) {
        return scripts.<Long>run(HELD, ScriptOutputType.INTEGER, new String[] {keys.holders()}, token)
                .thenApply(reply -> Replies.flag("share-held", reply));
    }

    public CompletableFuture<Replies.ShareState> inspect(ShareKeys keys) {
        return scripts.<List<Object>>run(INSPECT, ScriptOutputType.MULTI, keys.all(),
                Integer.toString(LockInfo.WAITING_SHOWN)).thenApply(Replies::shareState);
    }

    /**
     * Sets a semaphore's number of permits to {@code permits} if it has {@code named} (or none, or is not in use),
     * lending what a raise frees to the queue; answers the number it had, 0 if none was stored. A semaphore in use
     * with another number fails with {@link dev.warden.SemaphorePermitsException}.
     */
    public CompletableFuture<Long> resize(ShareKeys keys, ShareKeys.Kind kind, long named, long permits) {
        return scripts.<List<Object>>run(RESIZE, ScriptOutputType.MULTI, keys.all(), Long.toString(named),
                Long.toString(permits), kind.arg, RETENTION, keys.channel(), scripts.publish())
                .thenApply(Replies::shareResized);
    }

    /** Removes holders whoever they are and lends their permits on; answers their highest fence, or empty. */
    public CompletableFuture<OptionalLong> forceRelease(ShareKeys keys, ShareKeys.Kind kind, Holders which) {
        return scripts.<Long>run(FORCE_RELEASE, ScriptOutputType.INTEGER, keys.all(), which.arg, kind.arg,
                RETENTION, keys.channel(), scripts.publish()).thenApply(Replies::shareForceReleased);
    }
}
