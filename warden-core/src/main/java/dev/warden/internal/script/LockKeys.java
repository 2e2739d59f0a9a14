package dev.warden.internal.script;

/**
 * The Redis names of one lock. Every key carries the same hash tag, so that all of one lock's keys live in one
 * Redis Cluster slot. Braces and percent signs in the name are escaped so that a name cannot change the tag.
 * Only the lock key is kept; the others are derived when needed, which keeps a held lease small.
 *
 * @param lock the lock key: {@code "<fence>:<token>"} while held, {@code "<fence>"} while free
 */
public record LockKeys(String lock) {
    public static LockKeys of(String prefix, String name) {
        return new LockKeys(prefix + "{" + escape(name) + "}");
    }

    /**
     * @return where waiters do not queue (replica acknowledgements, quorum locks): a sorted set of the tokens of
     *         waiting acquisitions, scored by when each registration expires
     */
    String waiters() {
        return lock + ":w";
    }

    /** @return the queue ({@code RedisLock#queued}): a sorted set of the tokens of waiting acquisitions, by arrival */
    public String queue() {
        return lock + ":q";
    }

    /** @return the queue's registrations: a hash from each queued token to its liveness and grant */
    String registrations() {
        return lock + ":r";
    }

    /** @return the pub/sub channel a release publishes on when someone waits */
    public String channel() {
        return lock + ":c";
    }

    /**
     * @return the channel for the queued waiters of one client, on which a release grants them the lock, so that
     *         a grant reaches only the client it names (release-queued.lua appends ":" and the id to the channel)
     */
    public String grantChannel(String clientId) {
        return lock + ":c:" + clientId;
    }

    /**
     * A key under a prefix read back: the name of the lock whose hash tag it carries, and what follows the tag.
     *
     * @param name   the lock's name, unescaped
     * @param suffix what follows the tag's closing brace: "" for the lock key of a mutex, ":q", ":r", ":w" for its
     *               queue, registrations and waiters; other lock kinds use suffixes of their own
     */
    public record Parsed(String name, String suffix) {
    }

    /**
     * Reads a key back into the lock name of its tag: {@code prefix + "{" + escaped name + "}" + suffix}.
     *
     * @return the name and suffix, or null for a key of another shape: another prefix, no tag, or a tag that is
     *         not the escaped form of a name (so that a key Warden did not write is never read as a lock)
     */
    public static Parsed parse(String prefix, String key) {
        if (!key.startsWith(prefix) || key.length() < prefix.length() + 2 || key.charAt(prefix.length()) != '{') {
            return null;
        }
        int close = key.indexOf('}', prefix.length() + 1);
        if (close < 0) {
            return null;
        }
        String escaped = key.substring(prefix.length() + 1, close);
        String name = unescape(escaped);
        if (name == null || name.isEmpty() || !escape(name).equals(escaped)) {
            return null;
        }
        return new Parsed(name, key.substring(close + 1));
    }

    /**
     * A name as it stands inside the tag: braces and percent signs, if it has any, as {@code %7B}, {@code %7D} and
     * {@code %25}, so that a name cannot end the tag early; any other name as it is.
     */
    public static String escape(String name) {
        if (name.indexOf('{') < 0 && name.indexOf('}') < 0 && name.indexOf('%') < 0) {
            return name;
        }
        return name.replace("%", "%25").replace("{", "%7B").replace("}", "%7D");
    }

    /** The inverse of {@link #escape}; null for a text with a {@code %} that starts none of its three codes. */
    private static String unescape(String escaped) {
        if (escaped.indexOf('%') < 0) {
            return escaped;
        }
        StringBuilder name = new StringBuilder(escaped.length());
        for (int i = 0; i < escaped.length(); i++) {
            char c = escaped.charAt(i);
            if (c != '%') {
                name.append(c);
                continue;
            }
            String code = i + 3 <= escaped.length() ? escaped.substring(i, i + 3) : "";
            switch (code) {
                case "%25" -> name.append('%');
                case "%7B" -> name.append('{');
                case "%7D" -> name.append('}');
                default -> {
                    return null;
                }
            }
            i += 2;
        }
        return name.toString();
    }
}
