package dev.warden.internal.inspect;

import dev.warden.Identity;
import dev.warden.LockInfo;
import dev.warden.internal.script.Replies;
import dev.warden.internal.script.Scripts;
import dev.warden.internal.script.Tokens;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Names the holder and the waiters of inspected locks from their clients' identity records ({@link IdentityRecord}):
 * each client's record is read once per reader, so a listing of many locks of few clients reads few records. A
 * lock without holder or waiters costs no read.
 */
public final class IdentityReader {
    private final Scripts scripts;
    private final String prefix;
    private final Map<String, CompletableFuture<Map<String, String>>> records = new ConcurrentHashMap<>();

    IdentityReader(Scripts scripts, String prefix) {
        this.scripts = scripts;
        this.prefix = prefix;
    }

    /** @return the lock's state for the API, with the identities of its holder and waiters */
    CompletableFuture<LockInfo> info(String name, Replies.State state) {
        return named(state.origins(), identities -> state.info(name, identities));
    }

    /**
     * Reads the records that name {@code origins}, then builds what needs their identities.
     *
     * @param build makes the result from each origin's identity (an identity with only the origin's tag and thread
     *              where its client has no record)
     * @return completes with what {@code build} made, at once where there are no origins
     */
    <T> CompletableFuture<T> named(Set<Tokens.Origin> origins, Function<Map<Tokens.Origin, Identity>, T> build) {
        if (origins.isEmpty()) {
            return CompletableFuture.completedFuture(build.apply(Map.of()));
        }
        Map<Tokens.Origin, CompletableFuture<Map<String, String>>> reads = new HashMap<>();
        for (Tokens.Origin origin : origins) {
            reads.put(origin, records.computeIfAbsent(origin.tag(),
                    tag -> scripts.readIdentity(IdentityRecord.key(prefix, tag))));
        }
        return CompletableFuture.allOf(reads.values().toArray(CompletableFuture[]::new)).thenApply(done -> {
            Map<Tokens.Origin, Identity> identities = new HashMap<>();
            reads.forEach((origin, read) -> identities.put(origin, identity(origin, read.join())));
            return build.apply(identities);
        });
    }

    /** @return who an origin names, from its client's record (empty where there is none) */
    public static Identity identity(Tokens.Origin origin, Map<String, String> record) {
        String pid = record.get("pid");
        OptionalLong process = OptionalLong.empty();
        if (pid != null && pid.matches("\\d{1,18}")) {
            process = OptionalLong.of(Long.parseLong(pid));
        }
        return new Identity(origin.tag(), origin.threadId(), Optional.ofNullable(record.get("name")),
                Optional.ofNullable(record.get("host")), process,
                Optional.ofNullable(record.get(IdentityRecord.field(origin.threadId()))));
    }
}
