package dev.warden.cli.doctor;

/**
 * What the user needs of held locks when the Redis server restarts ({@code warden doctor --durability}).
 * Fencing tokens keep rising whatever is chosen (they are at least the server's time in µs); mutual exclusion
 * across a restart needs the lock keys back.
 */
public enum Durability {
    /** Locks may be lost when Redis restarts: two holders may then run at once until the old holder's renewal. */
    NONE("none"),
    /** Held locks must survive a restart or a crash of the Redis process (not of the machine): needs AOF. */
    RESTART("restart"),
    /** Held locks must survive a power loss or kernel crash of the Redis machine: needs AOF with fsync always. */
    FSYNC("fsync");

    private final String label;

    Durability(String label) {
        this.label = label;
    }

    @Override
    public String toString() {
        return label;
    }

    /** Reads {@code none}, {@code restart} or {@code fsync}, for picocli. */
    public static Durability parse(String value) {
        for (Durability d : values()) {
            if (d.label.equals(value)) {
                return d;
            }
        }
        throw new picocli.CommandLine.TypeConversionException(
                "'" + value + "' is not a durability: none, restart or fsync");
    }
}
