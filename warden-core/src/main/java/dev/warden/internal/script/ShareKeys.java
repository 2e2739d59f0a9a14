package dev.warden.internal.script;

/**
 * The Redis names of one shared lock: a semaphore, or a read-write lock ({@code share.lua}). They carry the hash
 * tag of the lock of the same name ({@link LockKeys}), so that all of them live in one Redis Cluster slot, and a
 * suffix for the kind, so that a semaphore, a read-write lock and a lock of one name do not meet.
 *
 * @param state the state: a hash of the capacity, the permits lent, the last fence and each holder's share
 */
public record ShareKeys(String state) {
    /** The kinds of shared lock, each with its suffix and the kind argument of its scripts. */
    public enum Kind {
        SEMAPHORE(":s", "s"),
        READ_WRITE(":rw", "rw");

        public final String suffix;
        final String arg;

        Kind(String suffix, String arg) {
            this.suffix = suffix;
            this.arg = arg;
        }
    }

    public static ShareKeys of(String prefix, String name, Kind kind) {
        return new ShareKeys(LockKeys.of(prefix, name).lock() + kind.suffix);
    }

    /** @return the holders: a sorted set of tokens by when their lease ends (server ms) */
    String holders() {
        return state + ":h";
    }

    /** @return the queue: a sorted set of waiting tokens by arrival */
    String queue() {
        return state + ":q";
    }

    /** @return the queue's registrations: a hash from each queued token to its liveness, grant and permits */
    String registrations() {
        return state + ":r";
    }

    /** @return the channel prefix of grants; a grant to a client's waiter goes to this plus ":" and its id */
    String channel() {
        return state + ":c";
    }

    /** @return the channel of grants to the waiters of one client */
    public String grantChannel(String clientId) {
        return channel() + ":" + clientId;
    }

    /** @return the four keys of the scripts that change the lock, in their order */
    String[] all() {
        return new String[] {state, holders(), queue(), registrations()};
    }
}
