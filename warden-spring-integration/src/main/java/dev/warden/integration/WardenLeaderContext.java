package dev.warden.integration;

import dev.warden.Leadership;
import dev.warden.Term;
import java.util.Objects;
import java.util.Optional;
import org.springframework.integration.leader.Context;

/**
 * The {@link Context} of one term of a {@link WardenLeaderInitiator}: the {@code OnGrantedEvent} and
 * {@code OnRevokedEvent} of a term carry the same one. Beyond Spring Integration's {@code isLeader()},
 * {@code yield()} and {@code getRole()}, it gives the term's {@link #getEpoch() epoch}: the fencing token of the
 * lease the leader leads by, higher for every later term, to send with each write a leader makes so that a store
 * can refuse a deposed leader's writes.
 *
 * <p>{@link WardenLeaderInitiator#getContext()} gives the current term's context, or one with no term while the
 * initiator does not lead ({@code isLeader()} false, {@code getEpoch()} 0, {@code yield()} does nothing).
 */
public final class WardenLeaderContext implements Context {
    private final Leadership leadership;
    private final String role;
    private final Term term;
    /** Set when the term ended, before its {@code OnRevokedEvent}. */
    private volatile Leadership.Revocation revocation;

    /**
     * @param leadership the candidate, or null for a context with no term
     * @param role       the role (the election's name)
     * @param term       the term, or null for a context with no term
     */
    WardenLeaderContext(Leadership leadership, String role, Term term) {
        this.leadership = leadership;
        this.role = Objects.requireNonNull(role, "role");
        this.term = term;
    }

    /**
     * @return whether this term goes on: the candidate leads in it now, its lease not known lost; false from the
     *         moment the lease is known lost, even before the {@code OnRevokedEvent}
     */
    @Override
    public boolean isLeader() {
        return term != null && revocation == null && leadership.term().filter(term::equals).isPresent();
    }

    /**
     * Steps down if this term goes on ({@link Leadership#stepDown()}): the lease is released, which elects the next
     * candidate waiting at once, and this one joins again behind them. Does nothing if the term has ended.
     */
    @Override
    public void yield() {
        if (isLeader()) {
            leadership.stepDown();
        }
    }

    @Override
    public String getRole() {
        return role;
    }

    /** @return the term's epoch (its lease's fencing token, positive), or 0 for a context with no term */
    public long getEpoch() {
        return term == null ? 0 : term.epoch();
    }

    /** @return the term, or empty for a context with no term */
    public Optional<Term> getTerm() {
        return Optional.ofNullable(term);
    }

    /**
     * @return why the term ended ({@code LOST}: the lease was lost, perhaps to another leader; {@code STEPPED_DOWN}:
     *         yielded; {@code CLOSED}: the initiator stopped), set before its {@code OnRevokedEvent}; empty while it
     *         goes on
     */
    public Optional<Leadership.Revocation> getRevocation() {
        return Optional.ofNullable(revocation);
    }

    void revoked(Leadership.Revocation why) {
        this.revocation = why;
    }

    boolean isOf(Term other) {
        return term != null && term.equals(other);
    }

    @Override
    public String toString() {
        return "WardenLeaderContext{role=" + role + (term == null ? ", no term" : ", epoch=" + term.epoch()
                + (revocation == null ? "" : ", revoked " + revocation)) + "}";
    }
}
