package dev.warden.cli;

/**
 * The exit codes of {@code warden}, besides the exit code of the command that {@code warden run} or
 * {@code warden lead} ran, which passes through unchanged (128 + N when the command died of signal N). They follow
 * sysexits(3) and the shells' 126/127.
 */
final class ExitCodes {
    /** Success. */
    static final int OK = 0;
    /** A demo invariant was violated. */
    static final int INVARIANT_VIOLATED = 1;
    /** Bad command line: unknown option, malformed duration or URI, missing command. */
    static final int USAGE = 64;
    /** Redis could not be reached, timed out, or answered with an error. */
    static final int REDIS_UNAVAILABLE = 69;
    /** Warden itself failed unexpectedly. */
    static final int INTERNAL = 70;
    /** {@code warden run}: the lock was not acquired within {@code --wait}; {@code warden lead}: not elected. */
    static final int NOT_ACQUIRED = 75;
    /**
     * {@code warden run}, and {@code warden lead} without {@code --rejoin}: the lease was lost while the command ran
     * (for {@code lead}, the leadership), and the command was terminated.
     */
    static final int LEASE_LOST = 76;
    /** {@code warden doctor}: a setting that makes locks unsafe was found (sysexits' EX_CONFIG). */
    static final int UNSAFE_CONFIGURATION = dev.warden.cli.doctor.DoctorReport.UNSAFE_EXIT;
    /** {@code warden run} and {@code lead}: the command exists but could not be executed. */
    static final int CANNOT_EXECUTE = 126;
    /** {@code warden run} and {@code lead}: the command was not found. */
    static final int NOT_FOUND = 127;

    private ExitCodes() {
    }
}
