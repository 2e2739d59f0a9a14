package dev.warden.topology;

import dev.warden.redisserver.RedisServer;
import java.time.Duration;

/** Helpers for tests that start several servers. */
final class Topologies {
    private Topologies() {
    }

    /** Waits, bounded, until a replica reports its link to the master up. */
    static void awaitReplicaLink(RedisServer replica, Duration bound) throws InterruptedException {
        awaitInfo(replica, "replication", "master_link_status:up", bound);
    }

    /** Waits, bounded, until a sentinel knows a master's replicas and the other sentinels. */
    static void awaitSentinel(RedisServer sentinel, String master, int replicas, int otherSentinels, Duration bound)
            throws InterruptedException {
        long end = System.nanoTime() + bound.toNanos();
        java.util.Map<String, String> fields = java.util.Map.of();
        while (System.nanoTime() - end < 0) {
            java.util.List<?> reply = (java.util.List<?>) sentinel.call("SENTINEL", "MASTER", master);
            fields = new java.util.HashMap<>();
            for (int i = 0; i + 1 < reply.size(); i += 2) {
                fields.put(String.valueOf(reply.get(i)), String.valueOf(reply.get(i + 1)));
            }
            if (Integer.toString(replicas).equals(fields.get("num-slaves"))
                    && Integer.toString(otherSentinels).equals(fields.get("num-other-sentinels"))) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("sentinel " + sentinel.port() + " not ready within " + bound + ": " + fields);
    }

    /** Waits, bounded, until an INFO section contains a line; fails the test otherwise. */
    static void awaitInfo(RedisServer server, String section, String line, Duration bound)
            throws InterruptedException {
        long end = System.nanoTime() + bound.toNanos();
        String info = "";
        while (System.nanoTime() - end < 0) {
            info = (String) server.call("INFO", section);
            if (info.contains(line)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("port " + server.port() + " never reported " + line + " within " + bound + ":\n"
                + info);
    }
}
