package dev.warden.internal.wire;

import dev.warden.LockException;

/**
 * The version of a Redis server, read once when a client connects from its {@code INFO server} reply, and the
 * oldest version Warden's scripts run on: 6.0, whose {@code SET ... KEEPTTL} they use. Tested on 6.2 and 7.0;
 * sharded pub/sub on a cluster needs 7.0.
 *
 * @param major 0 when unknown (the server's reply had no version, or the user may not run {@code INFO})
 * @param text  as the server wrote it, or "unknown"
 */
record RedisVersion(int major, int minor, String text) {
    /** The oldest version the scripts run on. */
    static final RedisVersion REQUIRED = new RedisVersion(6, 0, "6.0");
    /** A server whose version could not be read: not checked. */
    static final RedisVersion UNKNOWN = new RedisVersion(0, 0, "unknown");

    /** Reads {@code redis_version:7.0.15} from an {@code INFO server} reply; {@link #UNKNOWN} if absent. */
    static RedisVersion parse(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                String text = line.substring("redis_version:".length()).trim();
                String[] parts = text.split("\\.");
                try {
                    return new RedisVersion(Integer.parseInt(parts[0]),
                            parts.length > 1 ? Integer.parseInt(parts[1]) : 0, text);
                } catch (NumberFormatException e) {
                    return UNKNOWN;
                }
            }
        }
        return UNKNOWN;
    }

    /** @return whether this is {@code major.minor} or later; false when unknown */
    boolean atLeast(int major, int minor) {
        return this.major > major || this.major == major && this.minor >= minor;
    }

    /**
     * Fails a connection to a server too old for the scripts. An unknown version passes: the first script then
     * fails loudly if the server cannot run it.
     *
     * @param where the deployment, for the message
     * @throws LockException naming the version found and the one needed
     */
    void require(String where) {
        if (major != 0 && !atLeast(REQUIRED.major, REQUIRED.minor)) {
            throw new LockException("Redis " + text + " at " + where + " is too old: Warden needs Redis "
                    + REQUIRED.text + " or later (its scripts use SET ... KEEPTTL)");
        }
    }
}
