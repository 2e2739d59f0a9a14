package dev.warden.internal.wait;

/**
 * Where waiters queue: whether a lease of this client holds one lock, so that new waiters of this client hold back
 * their first try for it; a value that the notifier replaces under its lock. A lease of this client granted the lock
 * becomes the {@code holder} (a local handover's successor keeps its token); its release is on its way as
 * {@code releasing} (a new holder may be granted meanwhile, so both can be set); each ends when its release answers
 * or the lease is lost. While either is set, a new waiter's first try is held back: the holder passes the lock on to
 * it locally (the default mode), or the release registers it, so that in fair mode this client's waiters keep their
 * arrival order. Immutable; every move is a method here.
 *
 * @param holder    the token of a lease of this client that a local waiter was granted, until it ends; or null
 * @param releasing the token of a lease of this client whose release is on its way, until it answers; or null
 */
record HoldBack(String holder, String releasing) {
    /** No lease of this client holds the lock or is being released. */
    static final HoldBack NONE = new HoldBack(null, null);

    /** @return whether a new waiter's first try waits for a lease of this client */
    boolean holdsBack() {
        return holder != null || releasing != null;
    }

    /** @return whether the lease with this token is the holder */
    boolean heldBy(String token) {
        return token.equals(holder);
    }

    /** A waiter of this client was granted the lock with this token. */
    HoldBack granted(String token) {
        return new HoldBack(token, releasing);
    }

    /** The holder's release is on its way; the caller checked {@link #heldBy}. */
    HoldBack releasing(String token) {
        if (!heldBy(token)) {
            throw new IllegalStateException("fair handover: " + token + " releases, but " + holder + " holds");
        }
        return new HoldBack(null, token);
    }

    /** @return the state once the lease with this token ended; this same state if it was neither */
    HoldBack ended(String token) {
        if (token.equals(releasing)) {
            return new HoldBack(holder, null);
        }
        if (token.equals(holder)) {
            return new HoldBack(null, releasing);
        }
        return this;
    }
}
