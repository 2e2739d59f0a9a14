package dev.warden.faults;

import dev.warden.redisserver.RedisProxy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The network between the workers and a single lock server, under the run's control: a {@link RedisProxy} per
 * worker, so that one worker can be cut off or slowed down while the others stay connected. A run without network
 * faults has no proxies; its workers connect to the server directly.
 */
final class Network implements AutoCloseable {
    private final String directSpec;
    private final List<RedisProxy> proxies = new ArrayList<>();

    /**
     * @param target  the lock servers
     * @param workers how many workers the run has
     * @param proxied whether each worker gets a proxy (a single server only)
     */
    Network(LockTarget target, int workers, boolean proxied) {
        this.directSpec = target.spec();
        if (proxied) {
            int port = URI.create(target.singleUri()).getPort();
            for (int w = 0; w < workers; w++) {
                proxies.add(RedisProxy.start(port));
            }
        }
    }

    /** @return the lock spec that worker {@code w} connects with: through its proxy if it has one */
    String spec(int w) {
        return proxies.isEmpty() ? directSpec : "single|" + proxies.get(w).uri();
    }

    /** Cuts worker {@code w} off: every byte of its connections, open now or later, is held back. */
    void cut(int w) {
        proxies.get(w).blackhole();
    }

    /**
     * Ends a cut: what was held back is delivered, or with {@code reset} the worker's connections are reset first
     * (as when the far side's TCP gave up during the partition), so the worker must reconnect.
     *
     * @return how many connections were reset
     */
    int heal(int w, boolean reset) {
        int resets = reset ? proxies.get(w).reset() : 0;
        proxies.get(w).heal();
        return resets;
    }

    /**
     * Cuts off the pub/sub connection of a random worker that has one, and nothing else of it.
     *
     * @return the worker, or -1 if no worker has subscribed yet
     */
    int cutPubSub(Random random) {
        List<Integer> subscribed = new ArrayList<>();
        for (int w = 0; w < proxies.size(); w++) {
            if (proxies.get(w).connections().stream().anyMatch(RedisProxy.Connection::subscriber)) {
                subscribed.add(w);
            }
        }
        if (subscribed.isEmpty()) {
            return -1;
        }
        int w = subscribed.get(random.nextInt(subscribed.size()));
        int cut = proxies.get(w).blackhole(RedisProxy.Connection::subscriber);
        if (cut < 1) {
            throw new IllegalStateException("worker " + w + "'s pub/sub connection closed before it was cut: " + cut);
        }
        return w;
    }

    /** Delays worker {@code w}'s requests and replies; zero durations end the delay. */
    void latency(int w, Duration requests, Duration replies) {
        proxies.get(w).latency(requests, replies);
    }

    @Override
    public void close() {
        proxies.forEach(RedisProxy::close);
    }
}
