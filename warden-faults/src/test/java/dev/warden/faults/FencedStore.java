package dev.warden.faults;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The protected resource, kept in a Redis server of its own (never faulted): it rejects a write whose fencing
 * token is lower than the highest it has accepted for that name, and logs what it accepts.
 */
final class FencedStore implements AutoCloseable {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final String script;

    FencedStore(String uri) {
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
        try (InputStream in = FencedStore.class.getResourceAsStream("store-write.lua")) {
            this.script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes on behalf of an acquisition; true if accepted. */
    boolean write(String name, long fence, String opId) {
        Long accepted = connection.sync().eval(script, ScriptOutputType.INTEGER,
                new String[] {"store:{" + name + "}:highest", "store:{" + name + "}:log"}, Long.toString(fence), opId);
        return accepted == 1L;
    }

    /** Notes that the process holds the name now, so that a stall can hit a holder. */
    void markHolder(String name, long pid) {
        connection.sync().sadd("holding:" + pid, name);
    }

    /** The process is about to release the name: it no longer counts as {@link #holds holding} it. */
    void unmarkHolder(String name, long pid) {
        connection.sync().srem("holding:" + pid, name);
    }

    /** @return whether the process has acquired a name and not yet begun to release it */
    boolean holds(long pid) {
        return connection.sync().scard("holding:" + pid) > 0;
    }

    /** Notes that the process's hold of the name is stretched now ({@code STRETCH-HELD}). */
    void markStretched(String name, long pid) {
        connection.sync().sadd("stretched:" + pid, name);
    }

    void unmarkStretched(String name, long pid) {
        connection.sync().srem("stretched:" + pid, name);
    }

    /**
     * @param role null for any; else the role a family name must have ("r", "w", or "p" for any semaphore's)
     * @return one of the names whose holds the process has stretched now, or null
     */
    String stretchedName(long pid, String role) {
        return member("stretched:" + pid, role);
    }

    /** @return whether the process notes a name of the role held ({@link #stretchedName}'s role) */
    boolean holds(long pid, String role) {
        return member("holding:" + pid, role) != null;
    }

    private String member(String key, String role) {
        if (role == null) {
            return connection.sync().srandmember(key);
        }
        return connection.sync().smembers(key).stream()
                .filter(name -> FamilyLocks.role(name).startsWith(role)).findAny().orElse(null);
    }

    /** @return one of the names the process notes held, or null */
    String heldName(long pid) {
        return connection.sync().srandmember("holding:" + pid);
    }

    /** The accepted writes for a name, in the order the store accepted them: "fence opId". */
    List<String> log(String name) {
        return connection.sync().lrange("store:{" + name + "}:log", 0, -1);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
