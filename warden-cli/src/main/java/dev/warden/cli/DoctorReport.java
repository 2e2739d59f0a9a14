package dev.warden.cli;

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
record DoctorReport(DoctorOptions options, String version, String mode, String role, List<Finding> findings) {
    DoctorReport {
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

    /** @return {@link ExitCodes#UNSAFE_CONFIGURATION} if any finding is unsafe, else {@link ExitCodes#OK} */
    int exitCode() {
        return counts().get(Finding.Severity.UNSAFE) > 0 ? ExitCodes.UNSAFE_CONFIGURATION : ExitCodes.OK;
    }
}
