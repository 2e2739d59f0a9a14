package dev.warden.cli.doctor;

import java.util.List;

/**
 * Says when {@code CONFIG GET} was refused (managed servers often rename or forbid it), and what the other checks
 * read instead. It has no code of its own to list where it does not apply: it only explains a refusal.
 */
final class ConfigCheck implements Check {
    static final String CODE = "CONFIG";

    @Override
    public List<String> codes() {
        return List.of();
    }

    @Override
    public List<Finding> run(DoctorProbe probe) {
        return probe.config().failure.map(error -> List.of(Finding.unchecked(CODE, "CONFIG GET failed: " + error,
                "managed servers often rename or forbid CONFIG. Read from INFO instead: maxmemory_policy, "
                        + "maxmemory, aof_enabled; not checked: the RDB save points and appendfsync",
                "check save and appendfsync in the server's configuration (or the provider's console)")))
                .orElse(List.of());
    }
}
