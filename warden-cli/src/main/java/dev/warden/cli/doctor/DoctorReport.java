package dev.warden.cli.doctor;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code warden doctor} found on one server.
 *
 * @param options  what it checked against
 * @param version  the server's version, or {@code unknown}
 * @param mode     {@code standalone}, {@code cluster}, {@code sentinel} or {@code unknown}
 * @param role     {@code master}, {@code slave} or {@code unknown}
 * @param findings the findings, in the order of the checks
 */
public record DoctorReport(DoctorOptions options, String version, String mode, String role, List<Finding> findings) {
    public DoctorReport {
        findings = List.copyOf(findings);
    }

    /** @return how many findings have each severity, every severity present */
    Map<Finding.Severity, Integer> counts() {
        Map<Finding.Severity, Integer> counts = new EnumMap<>(Finding.Severity.class);
        for (Finding.Severity severity : Finding.Severity.values()) {
            counts.put(severity, 0);
        }
        findings.forEach(f -> counts.merge(f.severity(), 1, Integer::sum));
        return counts;
    }

    /** The exit code of a report with an unsafe finding: sysexits' EX_CONFIG, the command line's too. */
    public static final int UNSAFE_EXIT = 78;

    /** @return whether any finding is unsafe */
    public boolean unsafe() {
        return counts().get(Finding.Severity.UNSAFE) > 0;
    }

    /** @return {@link #UNSAFE_EXIT} if any finding is unsafe, else 0 */
    public int exitCode() {
        return unsafe() ? UNSAFE_EXIT : 0;
    }
}
