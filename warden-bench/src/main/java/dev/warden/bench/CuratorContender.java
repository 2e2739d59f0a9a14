package dev.warden.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;

/** Apache Curator's InterProcessMutex: a ZooKeeper lock, each waiter watching the node before its own. */
final class CuratorContender implements Contender {
    private final CuratorFramework client;
    private final Map<String, InterProcessMutex> mutexes = new ConcurrentHashMap<>();

    CuratorContender(String connectString) {
        client = CuratorFrameworkFactory.newClient(connectString, new RetryOneTime(100));
        client.start();
        try {
            if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("ZooKeeper did not answer at " + connectString);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting to ZooKeeper", e);
        }
    }

    @Override
    public String name() {
        return "curator";
    }

    @Override
    public boolean onRedis() {
        return false;
    }

    @Override
    public Release acquire(String key) throws Exception {
        InterProcessMutex mutex = mutexes.computeIfAbsent(key, k -> new InterProcessMutex(client, "/bench/" + k));
        mutex.acquire();
        return mutex::release;
    }

    @Override
    public void close() {
        client.close();
    }
}
