package dev.warden;

import java.util.Objects;

/**
 * One term of leadership: a candidate of an election led from when it was elected until it was revoked. Its
 * {@code epoch} is the fencing token of the lease it leads by: every later leader's epoch is higher, so a resource
 * that remembers the highest epoch it has seen can refuse the writes of a deposed leader that does not yet know it
 * was deposed (a leader that stalls past its lease can still act until it learns so).
 *
 * @param election the name of the election (the name of its lock)
 * @param epoch    the fencing token of this term's lease: higher than every earlier term's of this election
 */
public record Term(String election, long epoch) {
    /**
     * @throws NullPointerException     if {@code election} is null
     * @throws IllegalArgumentException if {@code epoch} is not positive
     */
    public Term {
        Objects.requireNonNull(election, "election");
        if (epoch <= 0) {
            throw new IllegalArgumentException("epoch must be positive: " + epoch);
        }
    }
}
