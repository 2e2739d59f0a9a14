package dev.warden.internal;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.RedisPubSubListener;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wake-ups for waiters: one pub/sub connection per client (opened on the first wait), one subscription per lock
 * name with local waiters, and a local FIFO queue per name. A release message wakes only the head of the queue, so
 * a release costs one retry per client rather than one per waiting thread.
 */
final class Notifier extends RedisPubSubAdapter<String, String> implements RedisConnectionStateListener {
    private static final Logger LOG = LoggerFactory.getLogger(Notifier.class);

    /** A waiter: told to retry now, or handed the lock directly by a release of this client. Must not block. */
    interface Waiter {
        void wake();

        /** Stops trying until {@link #granted} or {@link #unreserve}; false if it cannot be reserved now. */
        boolean reserve();

        /** A release of this client handed over the lock: the request that did so was sent at {@code sentAt}. */
        void granted(long fence, long sentAt);

        /** The handover did not happen: try again at once. */
        void unreserve();

        String token();

        long leaseMillis();
    }

    /** A reserved head waiter and the size of the queue it heads. */
    record Candidate(Waiter waiter, int queued) {
    }

    private final Link link;
    private final String instanceId;
    private final Map<String, Deque<Waiter>> queues = new HashMap<>();
    private final Map<String, CompletableFuture<Void>> subscriptions = new HashMap<>();
    private CompletableFuture<StatefulRedisPubSubConnection<String, String>> connection;
    private boolean closed;

    Notifier(Link link, String instanceId) {
        this.link = link;
        this.instanceId = instanceId;
    }

    /**
     * Adds a waiter for a channel; the returned future completes once the channel is subscribed. The waiter must
     * retry after that, since a release published before the subscription was not heard.
     */
    synchronized CompletableFuture<Void> join(String channel, Waiter waiter) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("client closed"));
        }
        Deque<Waiter> queue = queues.computeIfAbsent(channel, c -> new ArrayDeque<>());
        queue.addLast(waiter);
        return subscriptions.computeIfAbsent(channel, c -> connection()
                .thenCompose(conn -> (link.sharded() ? conn.async().ssubscribe(c) : conn.async().subscribe(c))
                        .toCompletableFuture())
                .thenApply(ignored -> null));
    }

    /** The channel's subscription if it is established now, else null; identity tells continuity. */
    synchronized CompletableFuture<Void> subscribed(String channel) {
        CompletableFuture<Void> subscription = subscriptions.get(channel);
        return subscription != null && subscription.isDone() && !subscription.isCompletedExceptionally()
                ? subscription : null;
    }

    /**
     * Removes a waiter. If it was the head and {@code passWake} is set (it leaves without the lock), the next waiter
     * is woken, so a wake-up it may have consumed is not lost.
     */
    void leave(String channel, Waiter waiter, boolean passWake) {
        Waiter next = null;
        synchronized (this) {
            Deque<Waiter> queue = queues.get(channel);
            if (queue == null) {
                return;
            }
            boolean wasHead = queue.peekFirst() == waiter;
            queue.remove(waiter);
            if (queue.isEmpty()) {
                queues.remove(channel);
                subscriptions.remove(channel);
                unsubscribe(channel);
            } else if (passWake && wasHead) {
                next = queue.peekFirst();
            }
        }
        if (next != null) {
            next.wake();
        }
    }

    /** Reserves the head waiter of a channel for a direct handover, if there is one that can be reserved now. */
    Candidate reserveHead(String channel) {
        Waiter head;
        int queued;
        synchronized (this) {
            Deque<Waiter> queue = queues.get(channel);
            if (queue == null || queue.isEmpty()) {
                return null;
            }
            head = queue.peekFirst();
            queued = queue.size();
        }
        return head.reserve() ? new Candidate(head, queued) : null;
    }

    /** Wakes the head waiter of a channel, if any: a release was heard, or a local lease ended. */
    void wakeOne(String channel) {
        Waiter head;
        synchronized (this) {
            Deque<Waiter> queue = queues.get(channel);
            head = queue == null ? null : queue.peekFirst();
        }
        if (head != null) {
            head.wake();
        }
    }

    @Override
    public void message(String channel, String message) {
        // This client's own releases already woke its head waiter locally; the echo would cost a futile retry.
        if (!instanceId.equals(message)) {
            wakeOne(channel);
        }
    }

    @Override
    public void smessage(String channel, String message) {
        message(channel, message);
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
        // Messages published while disconnected were lost: every head waiter retries after a reconnect.
        List<Waiter> heads = new ArrayList<>();
        synchronized (this) {
            for (Deque<Waiter> queue : queues.values()) {
                heads.add(queue.peekFirst());
            }
        }
        heads.forEach(Waiter::wake);
    }

    synchronized void close() {
        closed = true;
        if (connection != null) {
            connection.thenAccept(StatefulRedisPubSubConnection::closeAsync);
        }
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
