package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code warden --version} prints the version of the pom that built the jar, and nothing else. */
class VersionIT {

    @Test
    void versionIsThePomsVersion() throws Exception {
        Cli.Result result = Cli.run("--version");
        assertThat(result.exit()).as("%s", result).isZero();
        assertThat(result.out()).as("%s", result).isEqualTo("warden " + Cli.pomVersion() + System.lineSeparator());
        assertThat(result.err()).as("%s", result).isEmpty();
    }
}
