package dev.warden.cli.doctor;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether the server's version runs Warden's commands. The scripts use {@code SET ... KEEPTTL} (Redis 6.0);
 * Warden is tested on 6.2 and 7.x; sharded pub/sub ({@code SSUBSCRIBE}, {@code SPUBLISH}) needs 7.0.
 */
final class VersionCheck implements Check {
    static final String CODE = "VERSION";
    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)");

    @Override
    public List<String> codes() {
        return List.of(CODE);
    }

    @Override
    public boolean onSentinel() {
        return true;
    }

    @Override
    public List<Finding> run(DoctorProbe probe) {
        if (!probe.infoReply().ok()) {
            return List.of(Finding.unchecked(CODE, probe.infoFailure(), "the version is unknown",
                    "check that the server runs Redis 6.2 or later"));
        }
        return List.of(evaluate(probe.version(), probe.cluster()));
    }

    /**
     * @param version INFO's {@code redis_version}, such as {@code 6.2.6}
     * @param cluster whether the server runs in cluster mode
     * @return the finding
     */
    static Finding evaluate(String version, boolean cluster) {
        String observed = "redis_version " + version + (cluster ? " (cluster)" : "");
        Matcher m = VERSION.matcher(version);
        if (!m.lookingAt()) {
            return Finding.unchecked(CODE, observed, "the version cannot be read", "check that it is 6.2 or later");
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        if (major < 6) {
            return Finding.unsafe(CODE, observed, "older than 6.0: Warden's scripts use SET ... KEEPTTL, which this "
                    + "server rejects, so fencing tokens and lock takeovers fail", "upgrade to Redis 6.2 or later");
        }
        if (major == 6 && minor < 2) {
            return Finding.warn(CODE, observed, "Warden's commands exist from 6.0, but Warden is built and tested "
                    + "for 6.2 and 7.x", "upgrade to Redis 6.2 or later");
        }
        if (cluster && major < 7) {
            return Finding.warn(CODE, observed, "a cluster before 7.0 has no sharded pub/sub: every release that "
                    + "wakes waiters is broadcast to every node of the cluster (it works, and costs more)",
                    "upgrade the cluster to Redis 7, where Warden uses SSUBSCRIBE and SPUBLISH");
        }
        return Finding.ok(CODE, observed, "runs all of Warden's commands"
                + (cluster ? ", with sharded pub/sub" : ""));
    }
}
