package dev.warden.internal.lease;

/**
 * Where one acquisition stands among its lock's waiters, beside its {@link Phase} (which says whether a try is in
 * flight): whether it tried, whether it listens on the lock's channel in its client's notifier, and whether it left.
 * It only moves forward, through {@link #to}; like the phase it is guarded by the acquisition's monitor.
 *
 * <p>Where waiters queue in Redis, a waiter that tried may be registered there until it leaves: {@link #TRIED} and
 * {@link #JOINED} are the standings in which its leaving must take it out of the queue.
 */
public enum Standing {
    /** No try sent yet: nothing of it is in Redis. */
    NEW,
    /** A try was sent (by the acquisition, or by a release of its client that registered it); not listening. */
    TRIED,
    /** Tried, and listening on the lock's channel as one of its client's waiters of the lock. */
    JOINED,
    /**
     * Left the channel and the queue: the acquisition is over (or only its request to leave the queue is still in
     * flight, {@link Phase#LEAVING}), and nothing of it may join again.
     */
    LEFT;

    /** @return whether the acquisition may have been registered by a try, and not left yet */
    public boolean tried() {
        return this == TRIED || this == JOINED;
    }

    /** @return the standing after a try is sent: {@link #TRIED} from {@link #NEW}, else unchanged */
    public Standing afterTry() {
        return this == NEW ? TRIED : this;
    }

    /**
     * The one check of every move: forward only, and a try or a join after leaving is refused.
     *
     * @param what names the acquisition, for the message
     * @return {@code next}
     * @throws IllegalStateException for a move backwards or out of {@link #LEFT}: a bug, which fails the acquisition
     *                               loudly instead of leaving a waiter nobody removes
     */
    public Standing to(Standing next, String what) {
        if (next.ordinal() < ordinal() || (this == NEW && next == JOINED)) {
            throw new IllegalStateException(what + " moved from " + this + " to " + next);
        }
        return next;
    }
}
