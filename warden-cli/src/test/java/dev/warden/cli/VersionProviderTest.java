package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The version file is read as the build wrote it, and its absence or an unfiltered file is an error. */
class VersionProviderTest {

    private static InputStream file(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void readsTheVersionTheBuildWrote() throws Exception {
        assertThat(VersionProvider.read(file("# comment\nversion=1.2.3-SNAPSHOT\n"))).isEqualTo("1.2.3-SNAPSHOT");
    }

    @Test
    void aMissingFileIsAnErrorNotAVersion() {
        assertThatIllegalStateException().isThrownBy(() -> VersionProvider.read(null))
                .withMessageContaining("version.properties").withMessageContaining("missing");
    }

    @Test
    void anUnfilteredOrEmptyFileIsAnError() {
        assertThatIllegalStateException().isThrownBy(() -> VersionProvider.read(file("version=${project.version}\n")))
                .withMessageContaining("did not filter");
        assertThatIllegalStateException().isThrownBy(() -> VersionProvider.read(file("other=1\n")))
                .withMessageContaining("did not filter");
    }
}
