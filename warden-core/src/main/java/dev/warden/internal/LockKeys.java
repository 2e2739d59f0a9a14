package dev.warden.internal;

/**
 * The Redis names of one lock. Every key carries the same hash tag, so that all of one lock's keys live in one
 * Redis Cluster slot. Braces and percent signs in the name are escaped so that a name cannot change the tag.
 * Only the lock key is kept; the others are derived when needed, which keeps a held lease small.
 *
 * @param lock the lock key: {@code "<fence>:<token>"} while held, {@code "<fence>"} while free
 */
record LockKeys(String lock) {
    static LockKeys of(String prefix, String name) {
        return new LockKeys(prefix + "{" + escape(name) + "}");
    }

    /**
     * @return where waiters do not queue (replica acknowledgements, quorum locks): a sorted set of the tokens of
     *         waiting acquisitions, scored by when each registration expires
     */
    String waiters() {
        return lock + ":w";
    }

    /** @return the queue ({@link RedisLock#queued}): a sorted set of the tokens of waiting acquisitions, by arrival */
    String queue() {
        return lock + ":q";
    }

    /** @return the queue's registrations: a hash from each queued token to its liveness and grant */
    String registrations() {
        return lock + ":r";
    }

    /** @return the pub/sub channel a release publishes on when someone waits */
    String channel() {
        return lock + ":c";
    }

    /**
     * @return the channel for the queued waiters of one client, on which a release grants them the lock, so that
     *         a grant reaches only the client it names (release-queued.lua appends ":" and the id to the channel)
     */
    String grantChannel(String clientId) {
        return lock + ":c:" + clientId;
    }

    private static String escape(String name) {
        if (name.indexOf('{') < 0 && name.indexOf('}') < 0 && name.indexOf('%') < 0) {
            return name;
        }
        return name.replace("%", "%25").replace("{", "%7B").replace("}", "%7D");
    }
}
