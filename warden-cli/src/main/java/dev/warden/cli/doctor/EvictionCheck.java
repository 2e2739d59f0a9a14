package dev.warden.cli.doctor;

import java.util.List;
import java.util.Optional;

/** Whether the server's {@code maxmemory-policy} can evict lock keys, which all have a TTL. */
final class EvictionCheck implements Check {
    static final String CODE = "EVICTION";

    @Override
    public List<String> codes() {
        return List.of(CODE);
    }

    @Override
    public List<Finding> run(DoctorProbe probe) {
        InfoReply info = probe.info();
        DoctorProbe.Config config = probe.config();
        Optional<String> policy = config.policy.or(() -> info.get("maxmemory_policy"));
        Optional<Long> maxmemory = config.maxmemory.or(() -> probe.infoReply().ok()
                && info.get("maxmemory").isPresent() ? Optional.of(info.number("maxmemory", 0)) : Optional.empty());
        if (policy.isEmpty() || maxmemory.isEmpty()) {
            return List.of(Finding.unchecked(CODE, "neither CONFIG GET nor INFO memory answered",
                    "the doctor cannot tell whether lock keys can be evicted",
                    "check that maxmemory-policy is noeviction"));
        }
        return List.of(evaluate(policy.get(), maxmemory.get()));
    }

    /**
     * @param policy    {@code maxmemory-policy}, such as {@code allkeys-lru} or {@code noeviction}
     * @param maxmemory {@code maxmemory} in bytes; 0 means no limit
     * @return the finding
     */
    static Finding evaluate(String policy, long maxmemory) {
        String limit = maxmemory == 0 ? "no maxmemory limit" : "maxmemory " + maxmemory + " bytes";
        String observed = "maxmemory-policy " + policy + ", " + limit;
        String fix = "set maxmemory-policy noeviction (CONFIG SET maxmemory-policy noeviction, and in redis.conf), "
                + "or keep locks on a Redis of their own with noeviction";
        boolean allKeys = policy.startsWith("allkeys-");
        boolean volatileKeys = policy.startsWith("volatile-");
        if (policy.equals("noeviction")) {
            return Finding.ok(CODE, observed, "no key is ever evicted. At maxmemory, writes fail with OOM: acquires "
                    + "fail with an error and renewals may fail (the lease is then reported lost); no lock is held "
                    + "twice");
        }
        if (!allKeys && !volatileKeys) {
            return Finding.warn(CODE, observed, "an unknown policy: the doctor cannot tell whether it evicts lock "
                    + "keys", fix);
        }
        String what = allKeys
                ? "evicts any key under memory pressure, held locks included"
                : "evicts keys that have a TTL under memory pressure, and every Warden lock key has one (the lease)";
        if (maxmemory == 0) {
            return Finding.warn(CODE, observed, "the policy " + what + "; with no maxmemory limit nothing is "
                    + "evicted now, but once a limit is set, an evicted lock can be acquired by a second holder", fix);
        }
        return Finding.unsafe(CODE, observed, "the policy " + what + ": an evicted lock can be acquired by a second "
                + "holder while the first still runs (its next renewal finds the lock gone)", fix);
    }
}
