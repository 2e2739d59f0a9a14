package dev.warden.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One candidate of a leader election, in a client (a connection) of its own: what {@link Handover L1} measures. Each
 * library's candidate joins when it is opened, and tells when it is elected through {@link #election()}.
 */
interface LeaderCandidate extends AutoCloseable {
    /** The libraries L1 measures: Warden, Spring Integration's lock-registry leader, Curator's leader latch. */
    List<String> NAMES = List.of("warden", "spring", "curator");

    /**
     * Opens a client of the named library and joins the election as a candidate.
     *
     * @param lease the lease of Warden, the lock expiry of Spring's registry, the ZooKeeper session timeout asked
     *              by Curator
     * @throws IllegalArgumentException if the name is not one of {@link #NAMES}
     */
    static LeaderCandidate open(String name, Contenders.Servers servers, String election, Duration lease) {
        return switch (name) {
            case "warden" -> new WardenCandidate(servers.redis(), election, lease);
            case "spring" -> new SpringCandidate(servers.redis(), election, lease);
            case "curator" -> new CuratorCandidate(servers.zookeeper(), election, lease);
            default -> throw new IllegalArgumentException("no leader election in L1 for: " + name);
        };
    }

    /**
     * @return the future of the next election of this candidate, armed by the last {@link #armNext()} (or by the
     *         opening): it completes with {@link System#nanoTime()} in the elected callback, or exceptionally if
     *         the library reports that joining failed
     */
    CompletableFuture<Long> election();

    /** @return a new future of the next election, which {@link #election()} returns from now on */
    CompletableFuture<Long> armNext();

    /**
     * Gives up leadership on purpose, so that another candidate is elected: Warden steps down (and joins again by
     * itself), Spring's initiator is stopped, Curator's latch is closed.
     */
    void yieldLeadership();

    /** Joins again after {@link #yieldLeadership()}, where the library does not by itself. */
    void rejoin();

    /** @return whether it uses the bench's Redis, whose requests are counted; false for ZooKeeper */
    default boolean onRedis() {
        return true;
    }

    /** @return the lease, lock expiry or (negotiated) session timeout that bounds a dead leader's term */
    Duration lease();

    @Override
    void close();
}
