package dev.warden;

/**
 * Told when a {@link Leadership} candidate is elected and when its term ends. Calls come on the client's callback
 * threads, never on its I/O threads, one at a time and in order for one candidate: a term's {@link #revoked} always
 * comes after its {@link #elected} and before the next term's. A listener that throws is logged at WARN with the
 * election's name and the candidate carries on; it is never silent.
 */
public interface LeadershipListener {
    /**
     * This candidate leads now, for {@code term}: its epoch is the fencing token to send with every write the
     * leader makes.
     */
    void elected(Term term);

    /**
     * {@code term} has ended: this candidate no longer leads. Stop acting as leader at once; a resource that checks
     * epochs refuses a deposed leader's writes anyway.
     *
     * @param why why the term ended
     */
    void revoked(Term term, Leadership.Revocation why);

    /**
     * Joining the election failed (Redis unreachable, refused, or timed out); the candidate tries again after
     * {@code retryIn}. The default does nothing; the failure is logged at WARN either way.
     */
    default void failed(Throwable error, java.time.Duration retryIn) {
    }
}
