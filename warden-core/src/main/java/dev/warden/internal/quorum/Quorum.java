package dev.warden.internal.quorum;

import dev.warden.internal.wait.Deployment;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** The servers of a quorum and its arithmetic: how many make a majority, and when an outcome is decided. Immutable. */
public final class Quorum {
    private final List<QuorumNode> nodes;

    public Quorum(List<QuorumNode> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    public List<QuorumNode> nodes() {
        return nodes;
    }

    /** @return how many servers make a majority */
    public int majority() {
        return nodes.size() / 2 + 1;
    }

    /** @return whether so many servers refused (or failed) that a majority is out of reach */
    boolean outOfReach(int refusals) {
        return refusals > nodes.size() - majority();
    }

    /**
     * Whether a majority said yes, or so many said no or failed that a majority is out of reach; servers that have
     * not answered yet count for neither.
     */
    <T> boolean decided(List<Fanout.Outcome<T>> outcomes, Predicate<T> yes) {
        int agree = Fanout.count(outcomes, yes);
        int refuse = 0;
        for (Fanout.Outcome<T> outcome : outcomes) {
            refuse += outcome.pending() ? 0 : 1;
        }
        return agree >= majority() || outOfReach(refuse - agree);
    }

    /** Runs an action on every connected server. */
    void eachConnected(Consumer<Deployment> action) {
        for (QuorumNode node : nodes) {
            Deployment deployment = node.connected();
            if (deployment != null) {
                action.accept(deployment);
            }
        }
    }
}
