package dev.warden.internal.wait;

/**
 * Fair mode: where the local handover of one lock stands in this client, a value that the notifier replaces under
 * its lock. A waiter of this client granted the lock becomes the {@code holder}; its release is on its way as
 * {@code releasing} (a new holder may be granted meanwhile, so both can be set); each ends when its release
 * answers. While either is set, a new waiter's first try is held back for the release to register it, so that
 * this client's waiters keep their arrival order. Immutable; every move is a method here.
 *
 * @param holder    the token of a lease of this client that a local waiter was granted, until it ends; or null
 * @param releasing the token of a lease of this client whose release is on its way, until it answers; or null
 */
record FairHandover(String holder, String releasing) {
    /** No lease of this client holds the lock or is being released. */
    static final FairHandover NONE = new FairHandover(null, null);

    /** @return whether a new waiter's first try waits for a lease of this client */
    boolean holdsBack() {
        return holder != null || releasing != null;
    }

    /** @return whether the lease with this token is the holder */
    boolean heldBy(String token) {
        return token.equals(holder);
    }

    /** A waiter of this client was granted the lock with this token. */
    FairHandover granted(String token) {
        return new FairHandover(token, releasing);
    }

    /** The holder's release is on its way; the caller checked {@link #heldBy}. */
    FairHandover releasing(String token) {
        if (!heldBy(token)) {
            throw new IllegalStateException("fair handover: " + token + " releases, but " + holder + " holds");
        }
        return new FairHandover(null, token);
    }

    /** @return the state once the lease with this token ended; this same state if it was neither */
    FairHandover ended(String token) {
        if (token.equals(releasing)) {
            return new FairHandover(holder, null);
        }
        if (token.equals(holder)) {
            return new FairHandover(null, releasing);
        }
        return this;
    }
}
