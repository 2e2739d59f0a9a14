package dev.warden.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.retry.RetryOneTime;

/**
 * Curator's {@link LeaderLatch} on a ZooKeeper client of its own that asks for the given session timeout: an
 * ephemeral sequential node per candidate, each watching the one before its own, so a dead leader's node goes
 * when its session expires. A latch cannot start again once closed: {@link #rejoin()} starts a new one.
 */
final class CuratorCandidate extends SignalledCandidate {
    private final CuratorFramework client;
    private final String path;
    private LeaderLatch latch;

    CuratorCandidate(String connectString, String election, Duration sessionTimeout) {
        this.path = "/bench/leader/" + election;
        this.client = CuratorFrameworkFactory.builder().connectString(connectString)
                .sessionTimeoutMs((int) sessionTimeout.toMillis())
                .connectionTimeoutMs((int) Math.min(sessionTimeout.toMillis(), 15_000))
                .retryPolicy(new RetryOneTime(100)).build();
        client.start();
        try {
            if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
                client.close();
                throw new IllegalStateException("ZooKeeper did not answer at " + connectString);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.close();
            throw new IllegalStateException("interrupted while connecting to ZooKeeper", e);
        }
        rejoin();
    }

    @Override
    public boolean onRedis() {
        return false;
    }

    /** Closes the latch, which deletes its node: the next candidate's watch fires. */
    @Override
    public void yieldLeadership() {
        try {
            latch.close();
        } catch (IOException e) {
            throw new UncheckedIOException("could not close Curator's leader latch", e);
        }
    }

    @Override
    public void rejoin() {
        LeaderLatch next = new LeaderLatch(client, path);
        next.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                signal.elected();
            }

            @Override
            public void notLeader() {
                // Only elections are timed.
            }
        });
        try {
            next.start();
        } catch (Exception e) {
            throw new IllegalStateException("could not start Curator's leader latch", e);
        }
        latch = next;
    }

    /** @return the session timeout ZooKeeper granted, which may differ from the one asked */
    @Override
    public Duration lease() {
        try {
            return Duration.ofMillis(client.getZookeeperClient().getZooKeeper().getSessionTimeout());
        } catch (Exception e) {
            throw new IllegalStateException("could not read the ZooKeeper session timeout", e);
        }
    }

    /**
     * Closes the client, whose session's end deletes the latch's node. Not the latch first: its node is deleted in
     * the background, which the closing client then fails and logs.
     */
    @Override
    public void close() {
        client.close();
    }
}
