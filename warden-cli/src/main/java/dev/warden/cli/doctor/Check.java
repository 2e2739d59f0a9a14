package dev.warden.cli.doctor;

import java.util.List;

/**
 * One check of {@code warden doctor}: what it asks the server, through the {@link DoctorProbe}, and the findings it
 * draws from the answers. The probe runs every check of {@link DoctorProbe#CHECKS} in order.
 */
interface Check {
    /** @return the codes of its findings, in order: listed as unchecked where the check does not apply */
    List<String> codes();

    /** @return whether it applies to a Sentinel too; the others apply to the data servers only */
    default boolean onSentinel() {
        return false;
    }

    /**
     * Runs the check.
     *
     * @param probe the server under test, with what was read from it once for several checks
     * @return its findings; a refused command is an unchecked finding that names the server's error, never an
     *         exception
     */
    List<Finding> run(DoctorProbe probe);
}
