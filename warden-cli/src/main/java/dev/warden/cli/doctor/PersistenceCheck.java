package dev.warden.cli.doctor;

import java.util.List;
import java.util.Optional;

/** Whether the server's persistence meets the durability the user needs ({@link Durability}). */
final class PersistenceCheck implements Check {
    static final String CODE = "PERSISTENCE";

    private static final String EMPTY_RESTART = "A Redis that restarts without the lock keys lets a second holder "
            + "acquire a lock the first still holds, until the first one's next renewal finds it gone. Fencing tokens "
            + "keep rising (they are at least the server's time in microseconds), so a resource that checks them "
            + "rejects the old holder's writes, but mutual exclusion does not hold";

    @Override
    public List<String> codes() {
        return List.of(CODE);
    }

    @Override
    public List<Finding> run(DoctorProbe probe) {
        DoctorProbe.Config config = probe.config();
        Optional<Boolean> aof = config.appendonly.map(value -> value.equals("yes"))
                .or(() -> probe.infoReply().ok()
                        ? probe.info().get("aof_enabled").map(value -> value.equals("1")) : Optional.empty());
        if (aof.isEmpty()) {
            return List.of(Finding.unchecked(CODE, "neither CONFIG GET nor INFO persistence answered",
                    "the doctor cannot tell whether locks survive a restart",
                    "check appendonly, appendfsync and save in the server's configuration"));
        }
        return List.of(evaluate(probe.options().durability(), aof.get(), config.save, config.appendfsync));
    }

    /**
     * @param need        what the user needs
     * @param aof         whether AOF is on ({@code appendonly yes}, or INFO's {@code aof_enabled:1})
     * @param save        the RDB save points ({@code ""} for none); empty when CONFIG could not be read
     * @param appendfsync {@code always}, {@code everysec} or {@code no}; empty when CONFIG could not be read
     * @return the finding
     */
    static Finding evaluate(Durability need, boolean aof, Optional<String> save, Optional<String> appendfsync) {
        String observed = "appendonly " + (aof ? "yes" : "no")
                + (aof ? ", appendfsync " + appendfsync.orElse("(unknown)") : "")
                + ", save " + save.map(s -> "\"" + s + "\"").orElse("(unknown)") + "; need: " + need;
        boolean rdb = save.map(s -> !s.isBlank()).orElse(false);
        switch (need) {
            case NONE:
                return Finding.ok(CODE, observed, "you accept losing locks when Redis restarts. " + EMPTY_RESTART
                        + ". A master brought back as a replica, or kept down longer than the longest lease, "
                        + "avoids it");
            case RESTART:
                if (aof) {
                    return Finding.ok(CODE, observed, "AOF writes every change to the OS before the reply (but for "
                            + "writes that everysec postpones, up to 2 s, while the disk is slow), so a restart or "
                            + "crash of the Redis process keeps held locks; a power loss may lose the last second "
                            + "(need 'fsync' to cover that)");
                }
                return Finding.unsafe(CODE, observed, (rdb
                        ? "RDB snapshots alone: a crash (kill -9, the OOM killer) rolls back to the last snapshot, "
                        + "losing locks acquired since. "
                        : save.isEmpty() ? "No AOF (the RDB save points are unknown, and would not be enough). "
                        : "Persistence is off. ") + EMPTY_RESTART,
                        "turn AOF on (appendonly yes; CONFIG SET appendonly yes, and in redis.conf), or bring a "
                                + "restarted master back as a replica, or say --durability none if you accept this");
            case FSYNC:
            default:
                if (aof && appendfsync.isPresent() && appendfsync.get().equals("always")) {
                    return Finding.ok(CODE, observed, "every change is fsynced before the reply: held locks survive "
                            + "a power loss of the Redis machine");
                }
                if (aof && appendfsync.isEmpty()) {
                    return Finding.unchecked(CODE, observed, "AOF is on, but appendfsync could not be read "
                            + "(CONFIG GET refused), so the doctor cannot tell whether a power loss keeps locks",
                            "check that appendfsync is 'always' in the server's configuration");
                }
                return Finding.unsafe(CODE, observed, (aof
                        ? "appendfsync " + appendfsync.get() + " fsyncs " + ("no".equals(appendfsync.get())
                        ? "when the OS decides (up to ~30 s)" : "once a second") + ": a power loss or kernel crash "
                        + "loses locks acquired in that window. "
                        : "No AOF: a power loss loses locks acquired since the last snapshot, if any. ")
                        + EMPTY_RESTART, "set appendonly yes and appendfsync always (each write then waits for the "
                        + "disk), or choose --durability restart if a process restart is what you need to survive");
        }
    }
}
