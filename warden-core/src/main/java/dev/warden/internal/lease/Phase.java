package dev.warden.internal.lease;

/**
 * Where one acquisition stands, for every kind of lock: the single lock's ({@code Acquisition}), the shared lock's
 * ({@code ShareAcquisition}), the quorum's ({@code QuorumAcquisition}) and the multi-lock's ({@code
 * MultiAcquisition}, which is only ever idle, trying or granted); only a single lock's or a share's is ever
 * leaving. Each keeps one phase, guarded by its own monitor and changed only through {@link #to}, which refuses a move
 * the protocol never makes; beside it, a waiter's {@link Standing} says whether it tried, listens, or left. An
 * acquisition is over once its result is done, whatever its phase.
 */
public enum Phase {
    /** No try in flight: before the first, or waiting for a wake-up, a grant or a timer. */
    IDLE,
    /**
     * A single lock whose waiters queue: the first try is held back while a lease of this client holds the lock;
     * that lease passes the lock on to the waiter locally (default mode) or its release registers the waiter, or
     * a timer sends the try.
     */
    HELD_BACK,
    /**
     * A try is in flight, sent by the acquisition or by a release of this client that registers it; a wake-up
     * meanwhile tries again after it.
     */
    TRYING,
    /**
     * A holder of this client reserved the waiter to pass the lock or its share on locally (or to decline); no try
     * goes out meanwhile, and a wake-up tries after it. Quorum acquisitions are never reserved.
     */
    RESERVED,
    /** Granted by a reply, a grant message or a local handover: the lease is being delivered; no more tries. */
    GRANTED,
    /**
     * A waiter of a single lock or a share whose wait ran out: it left, and its result completes empty once its one
     * request to leave the queue has answered (that request passes on a grant that reached it meanwhile, and a grant
     * message that comes now is ignored), so that "not acquired" means that nothing of it holds the lock.
     */
    LEAVING;

    /** @return whether a move from this phase to {@code next} is one the protocol makes */
    public boolean leadsTo(Phase next) {
        return switch (this) {
            case IDLE -> next != IDLE;
            case HELD_BACK -> next == TRYING || next == RESERVED || next == LEAVING;
            case TRYING -> next == IDLE || next == GRANTED || next == LEAVING;
            case RESERVED -> next == IDLE || next == GRANTED;
            case GRANTED, LEAVING -> false;
        };
    }

    /**
     * The one check of every move.
     *
     * @param what names the acquisition, for the message
     * @return {@code next}
     * @throws IllegalStateException for a move the protocol never makes: a bug, which fails the acquisition loudly
     *                               (through {@code InFlight}) instead of leaving it in a state nobody expects
     */
    public Phase to(Phase next, String what) {
        if (!leadsTo(next)) {
            throw new IllegalStateException(what + " moved from " + this + " to " + next);
        }
        return next;
    }
}
