package dev.warden.internal.wait;

import dev.warden.internal.base.UnexpectedReplyException;
import dev.warden.internal.script.LockKeys;
import dev.warden.internal.script.Registration;
import dev.warden.internal.script.Replies;
import dev.warden.internal.wire.Link;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.RedisPubSubListener;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wake-ups for waiters: one pub/sub connection per client (opened on the first wait), one subscription per lock
 * name with local waiters (kept for {@link #LINGER_MILLIS} after the last one leaves, since a lock that was waited
 * for is likely to be again), and a local FIFO queue per name. A release message wakes only the head of the queue, so
 * a release costs one retry per client rather than one per waiting thread. Where waiters queue in Redis
 * ({@code RedisLock#queued}) a release grants the lock to one waiter and names its token
 * ({@code "<token>:<fence>:<arm>"}) on a channel of that waiter's client alone ({@link LockKeys#grantChannel});
 * that waiter is found by its token. Where waiters queue it also keeps which lease of this client holds a lock, so
 * that a waiter that comes meanwhile waits for that lease without a request of its own ({@link #defer}): the lease
 * passes the lock on to it locally (the default mode), or its release registers it.
 */
public final class Notifier extends RedisPubSubAdapter<String, String> implements RedisConnectionStateListener {
    private static final Logger LOG = LoggerFactory.getLogger(Notifier.class);

    /** A waiter: told to retry now, or handed the lock directly by a release of this client. Must not block. */
    public interface Waiter {
        void wake();

        /**
         * Stops trying until a holder of this client passes the lock on to it (its kind's take-over) or
         * {@link #unreserve}; false if it cannot be reserved now.
         */
        boolean reserve();

        /**
         * Where waiters queue: a release granted the lock to this waiter's token, as registered by its attempt number
         * {@code arm}; the grant was made after that attempt was sent. {@code upcoming} lists the first tokens
         * queued behind it, where a release of this client made the grant, else it is null. Quorum locks are
         * never fair.
         */
        default void assigned(long fence, int arm, List<String> upcoming) {
        }

        /**
         * Where waiters queue: a release granted the lock to the waiter queued ahead of this one, for a grant's
         * lease of {@code grantMillis} until its holder renews it; a waiter that sleeps longer checks then.
         */
        default void holderChanged(long grantMillis) {
        }

        /** The handover did not happen: try again at once. */
        void unreserve();

        /**
         * A release of this client is about to register this waiter, held back for it, as if by its first try, sent
         * at {@code sentAt}.
         *
         * @return the registration, or null if the waiter cannot take part
         */
        default Registration board(long sentAt) {
            return null;
        }

        /** The release that {@link #board boarded} this waiter answered; {@code registered} if it ran. */
        default void boarded(boolean registered) {
        }

        String token();

        long leaseMillis();
    }

    /** How long a channel stays subscribed after its last local waiter left: the next one needs no SUBSCRIBE. */
    static final long LINGER_MILLIS = 2_000;

    /** A lock's channel in this client: its local waiters and its subscription. Guarded by the notifier. */
    private static final class Channel {
        final Deque<Waiter> queue = new ArrayDeque<>();
        CompletableFuture<Void> subscription;
        /** Wake-ups heard (or possibly missed, across a reconnect), so that a waiter can tell none came. */
        long wakes;
        ScheduledFuture<?> linger;
        /** Where waiters queue: which lease of this client holds the lock, and which one's release is on its way. */
        HoldBack handover = HoldBack.NONE;
        /** Where waiters queue: waiters whose first try waits for the holder's lease to end, first first. */
        List<Waiter> deferred = new ArrayList<>();
    }

    /**
     * A point in a channel's history: its subscription, established, and how many wake-ups it had heard.
     *
     * @param channel      the channel
     * @param subscription the subscription then
     * @param wakes        the wake-ups heard by then
     */
    public record Mark(Channel channel, CompletableFuture<Void> subscription, long wakes) {
    }

    private final Link link;
    private final String instanceId;
    private final ScheduledExecutorService scheduler;
    // Changed only under this notifier's lock; read without it where a missing channel settles the answer, so that
    // locks nobody waits for (the uncontended path) never queue for that lock.
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    /** Where waiters queue: this client's waiters by token, for the grants that name them. Concurrent, no lock. */
    private final Map<String, Waiter> byToken = new ConcurrentHashMap<>();
    /** The pub/sub connection, once asked for. Guarded by this notifier. */
    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection;
    /** Guarded by this notifier. */
    private boolean closed;

    Notifier(Link link, String instanceId, ScheduledExecutorService scheduler) {
        this.link = link;
        this.instanceId = instanceId;
        this.scheduler = scheduler;
    }

    /**
     * Adds a waiter for a channel; the returned future completes once the channel is subscribed. The waiter must
     * retry after that, since a release published before the subscription was not heard, unless
     * {@link #unbroken} shows it heard everything since it tried.
     */
    public synchronized CompletableFuture<Void> join(String channel, Waiter waiter) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("client closed"));
        }
        Channel c = channels.computeIfAbsent(channel, name -> new Channel());
        if (c.linger != null) {
            c.linger.cancel(false);
            c.linger = null;
        }
        c.queue.addLast(waiter);
        if (c.subscription == null || c.subscription.isCompletedExceptionally()) {
            c.subscription = connection()
                    .thenCompose(conn -> (link.sharded() ? conn.async().ssubscribe(channel)
                            : conn.async().subscribe(channel)).toCompletableFuture())
                    .thenApply(ignored -> null);
        }
        return c.subscription;
    }

    /**
     * @return the channel this client's waiters of a lock listen on: the lock's, or where waiters queue in Redis
     *         ({@code RedisLock#queued}) their client's own
     */
    public String channel(LockKeys keys, boolean queued) {
        return queued ? keys.grantChannel(instanceId) : keys.channel();
    }

    /**
     * @return whether a waiter of this client waited for the lock lately: its channel is subscribed, or lingers
     *         after its last waiter left
     */
    public boolean waitedFor(LockKeys keys, boolean queued) {
        return listened(keys, queued) != null;
    }

    /** Marks the state of a channel if this client listens on it and it is subscribed now, else returns null. */
    public Mark mark(String channel) {
        return channels.isEmpty() || !channels.containsKey(channel) ? null : markSubscribed(channel);
    }

    /** Marks the state of the lock's channel (see {@link #channel}) if it is subscribed now, else returns null. */
    public Mark mark(LockKeys keys, boolean queued) {
        String channel = listened(keys, queued);
        return channel == null ? null : markSubscribed(channel);
    }

    /**
     * @return the lock's channel if this client listens on it, else null; without the notifier's lock, and without
     *         even naming the channel while no lock of this client has a waiter (the uncontended case)
     */
    private String listened(LockKeys keys, boolean queued) {
        if (channels.isEmpty()) {
            return null;
        }
        String channel = channel(keys, queued);
        return channels.containsKey(channel) ? channel : null;
    }

    private synchronized Mark markSubscribed(String channel) {
        Channel c = channels.get(channel);
        if (c == null || c.subscription == null || !c.subscription.isDone()
                || c.subscription.isCompletedExceptionally()) {
            return null;
        }
        return new Mark(c, c.subscription, c.wakes);
    }

    /**
     * Whether the channel stayed subscribed since the mark and heard no wake-up meanwhile: a waiter that tried after
     * the mark and joined now missed nothing, and may wait instead of trying again.
     */
    public synchronized boolean unbroken(String channel, Mark mark) {
        Channel c = channels.get(channel);
        return mark != null && c == mark.channel() && c.subscription == mark.subscription()
                && c.wakes == mark.wakes();
    }

    /**
     * Removes a waiter. If it was the head and {@code passWake} is set (it leaves without the lock), the next waiter
     * is woken, so a wake-up it may have consumed is not lost. The last waiter to leave starts the linger.
     */
    public void leave(String channel, Waiter waiter, boolean passWake) {
        Waiter next = null;
        synchronized (this) {
            Channel c = channels.get(channel);
            if (c == null) {
                return;
            }
            boolean wasHead = c.queue.peekFirst() == waiter;
            c.queue.remove(waiter);
            if (c.queue.isEmpty()) {
                if (c.linger == null && !closed) {
                    c.linger = scheduler.schedule(() -> expire(channel, c), LINGER_MILLIS, TimeUnit.MILLISECONDS);
                }
            } else if (passWake && wasHead) {
                next = c.queue.peekFirst();
            }
        }
        if (next != null) {
            next.wake();
        }
    }

    /** @return how many waiters of this client are in the channel: for tests */
    public synchronized int listeners(String channel) {
        Channel c = channels.get(channel);
        return c == null ? 0 : c.queue.size();
    }

    /**
     * Unsubscribes a channel that has had no local waiter for the whole linger, unless a lease of this client holds
     * the lock or waiters are held back for one: that state lives in the channel, so it lingers on.
     */
    private void expire(String name, Channel c) {
        synchronized (this) {
            if (channels.get(name) != c || !c.queue.isEmpty() || closed) {
                return;
            }
            if (!c.deferred.isEmpty() || c.handover.holdsBack()) {
                c.linger = scheduler.schedule(() -> expire(name, c), LINGER_MILLIS, TimeUnit.MILLISECONDS);
                return;
            }
            channels.remove(name);
        }
        unsubscribe(name);
    }

    /** Where waiters queue: makes a waiter findable by its token, before its first attempt is sent. */
    public void register(String token, Waiter waiter) {
        byToken.put(token, waiter);
    }

    public void unregister(String token) {
        byToken.remove(token);
    }

    /**
     * Where waiters queue: passes a grant to the waiter of this client with that token.
     *
     * @param upcoming the first tokens queued behind it, if known (a release of this client made the grant)
     * @return false if no waiter of this client has that token any more
     */
    public boolean assigned(String token, long fence, int arm, List<String> upcoming) {
        Waiter waiter = byToken.get(token);
        if (waiter == null) {
            return false;
        }
        waiter.assigned(fence, arm, upcoming);
        return true;
    }

    /** @return this client's waiters of a lock, in the order they joined its channel: a copy */
    List<Waiter> waiters(LockKeys keys, boolean queued) {
        String channel = listened(keys, queued);
        if (channel == null) {
            return List.of();
        }
        synchronized (this) {
            Channel c = channels.get(channel);
            return c == null ? List.of() : new ArrayList<>(c.queue);
        }
    }

    /** Where waiters queue: the waiter of this client with that token, or null. */
    public Waiter waiting(String token) {
        return byToken.get(token);
    }

    /**
     * Reserves the next waiter of a default-mode lock in this client for a local handover, if there is one that can
     * be reserved now: the head of those that tried (they came first, and are registered in Redis), else the first
     * waiter held back for the holder ({@link #defer}), which then holds back no more.
     */
    public Waiter reserveHead(LockKeys keys) {
        String channel = listened(keys, true);
        if (channel == null) {
            return null;
        }
        while (true) {
            Waiter head;
            boolean tried;
            synchronized (this) {
                Channel c = channels.get(channel);
                if (c == null) {
                    return null;
                }
                tried = !c.queue.isEmpty();
                if (tried) {
                    head = c.queue.peekFirst();
                } else if (!c.deferred.isEmpty()) {
                    head = c.deferred.remove(0);
                } else {
                    return null;
                }
            }
            if (head.reserve()) {
                return head;
            }
            if (tried) {
                return null;
            }
            // A held-back waiter that cannot be reserved is trying on its own (its hold-back ran out) or is done:
            // the next one may take the lock.
        }
    }

    /**
     * Where waiters queue: the lock's channel in this client, or null; read under the notifier's lock. Callers that
     * may run on the uncontended path first check {@link #listened} without it.
     */
    private Channel queuedChannel(LockKeys keys) {
        return channels.isEmpty() ? null : channels.get(channel(keys, true));
    }

    /**
     * Where waiters queue: a lease of this client was granted the lock with this token (in the default mode, one that
     * renews: only a renewed lease's end is always heard, by its release or its loss).
     */
    public void holding(LockKeys keys, String token) {
        if (listened(keys, true) == null) {
            return;
        }
        synchronized (this) {
            Channel c = queuedChannel(keys);
            if (c != null) {
                c.handover = c.handover.granted(token);
            }
        }
    }

    /**
     * Where waiters queue: holds back a waiter's first try while a lease of this client holds the lock: that lease
     * passes the lock on to it ({@link #reserveHead}, the default mode) or its release registers the waiter
     * ({@link #board}); if the lease ends otherwise, the waiter tries ({@link #ended}).
     *
     * @return whether the try waits
     */
    public synchronized boolean defer(LockKeys keys, Waiter waiter) {
        Channel c = queuedChannel(keys);
        if (c == null || !c.handover.holdsBack()) {
            return false;
        }
        c.deferred.add(waiter);
        return true;
    }

    /** A waiter held back by {@link #defer} tries on its own after all, or gave up. */
    public synchronized void undefer(LockKeys keys, Waiter waiter) {
        Channel c = queuedChannel(keys);
        if (c != null) {
            c.deferred.remove(waiter);
        }
    }

    /**
     * Where waiters queue: the lease of this client with that token is being released; returns the waiters held back
     * for it,
     * for the release to register, and holds back no more.
     */
    public List<Waiter> board(LockKeys keys, String token) {
        if (listened(keys, true) == null) {
            return List.of();
        }
        synchronized (this) {
            Channel c = queuedChannel(keys);
            if (c == null || !c.handover.heldBy(token)) {
                return List.of();
            }
            c.handover = c.handover.releasing(token);
            if (c.deferred.isEmpty()) {
                return List.of();
            }
            List<Waiter> riders = c.deferred;
            c.deferred = new ArrayList<>();
            return riders;
        }
    }

    /**
     * Fair mode: a lease of this client with that token passed the lock on to a waiter of this client, which keeps
     * the token; returns the waiters held back for it, for the registration that follows ({@link #board}), and
     * holds back later ones for the new holder.
     */
    public List<Waiter> passOn(LockKeys keys, String token) {
        if (listened(keys, true) == null) {
            return List.of();
        }
        synchronized (this) {
            Channel c = queuedChannel(keys);
            if (c == null || !c.handover.heldBy(token) || c.deferred.isEmpty()) {
                return List.of();
            }
            List<Waiter> riders = c.deferred;
            c.deferred = new ArrayList<>();
            return riders;
        }
    }

    /**
     * Where waiters queue: the lease of this client with that token has ended (its release answered, after any
     * grant it made, or it was lost). Waiters held back for it wait on for the next holder if the release granted
     * the lock to another lease of this client, and try now otherwise.
     */
    public void ended(LockKeys keys, String token) {
        if (listened(keys, true) == null) {
            return;
        }
        List<Waiter> ready;
        synchronized (this) {
            Channel c = queuedChannel(keys);
            if (c == null) {
                return;
            }
            HoldBack after = c.handover.ended(token);
            if (after == c.handover) {
                return;
            }
            c.handover = after;
            if (after.holder() != null || c.deferred.isEmpty()) {
                return;
            }
            ready = c.deferred;
            c.deferred = new ArrayList<>();
        }
        ready.forEach(Waiter::wake);
    }

    /** Wakes the head waiter of a lock, if any: a local lease ended, or a release of it found no waiter. */
    public void wakeOne(LockKeys keys, boolean queued) {
        String channel = listened(keys, queued);
        if (channel == null) {
            return;
        }
        Waiter head;
        synchronized (this) {
            Channel c = channels.get(channel);
            head = c == null ? null : c.queue.peekFirst();
        }
        if (head != null) {
            head.wake();
        }
    }

    /** A wake-up was heard on the channel: counted, then passed to its head waiter. */
    private void heard(String channel) {
        Waiter head = null;
        synchronized (this) {
            Channel c = channels.get(channel);
            if (c != null) {
                c.wakes++;
                head = c.queue.peekFirst();
            }
        }
        if (head != null) {
            head.wake();
        }
    }

    @Override
    public void message(String channel, String message) {
        Replies.Grant grant;
        try {
            Replies.HolderChanged changed = Replies.holderChanged(message);
            if (changed != null) {
                Waiter waiter = byToken.get(changed.token());
                if (waiter != null) {
                    waiter.holderChanged(changed.grantMillis());
                }
                return;
            }
            grant = Replies.grant(message);
        } catch (UnexpectedReplyException e) {
            // Nobody waits for this message in particular: the waiter it names finds its grant by its next try.
            LOG.warn("ignored a message on {}: {}", channel, e.getMessage());
            return;
        }
        if (grant != null) {
            assigned(grant.token(), grant.fence(), grant.arm(), null);
        } else if (!instanceId.equals(message)) {
            // This client's own releases already woke its head waiter locally; the echo would cost a futile retry.
            heard(channel);
        }
    }

    @Override
    public void smessage(String channel, String message) {
        message(channel, message);
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
        // Messages published while disconnected were lost: every head waiter retries after a reconnect, and so
        // does every queued waiter, since any of them may have been granted the lock meanwhile.
        List<Waiter> heads = new ArrayList<>(byToken.values());
        synchronized (this) {
            for (Channel c : channels.values()) {
                c.wakes++;
                if (!c.queue.isEmpty()) {
                    heads.add(c.queue.peekFirst());
                }
            }
        }
        heads.forEach(Waiter::wake);
    }

    /**
     * Stops waking waiters and closes the pub/sub connection, once it is open if it is still connecting.
     *
     * @return completes when the connection is closed (or never opened); a failure to close is logged here
     */
    synchronized CompletableFuture<Void> close() {
        closed = true;
        for (Channel c : channels.values()) {
            if (c.linger != null) {
                c.linger.cancel(false);
            }
        }
        if (connection == null) {
            return CompletableFuture.completedFuture(null);
        }
        return connection.handle((open, error) -> open).thenCompose(open -> open == null
                ? CompletableFuture.<Void>completedFuture(null)
                : open.closeAsync().handle((closed, closeError) -> {
                    if (closeError != null) {
                        LOG.warn("pub/sub connection did not close cleanly: {}", closeError.toString());
                    }
                    return null;
                }));
    }

    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection() {
        if (connection == null || connection.isCompletedExceptionally()) {
            connection = link.connectPubSub()
                    .thenApply(conn -> {
                        conn.addListener((RedisPubSubListener<String, String>) this);
                        conn.addListener((RedisConnectionStateListener) this);
                        return conn;
                    });
        }
        return connection;
    }

    private void unsubscribe(String channel) {
        StatefulRedisPubSubConnection<String, String> conn = connection.getNow(null);
        if (conn != null) {
            (link.sharded() ? conn.async().sunsubscribe(channel) : conn.async().unsubscribe(channel)).exceptionally(e -> {
                // A stale subscription only delivers messages nobody waits for; it ends with the connection.
                LOG.debug("unsubscribe from {} failed: {}", channel, e.toString());
                return null;
            });
        }
    }
}
