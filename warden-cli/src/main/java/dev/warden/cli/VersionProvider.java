package dev.warden.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * What {@code warden --version} prints: the version the build wrote into {@code version.properties}, so that it
 * is always the pom's. A jar without that file, or with the file unfiltered, fails loudly instead of printing a
 * made-up version.
 */
final class VersionProvider implements IVersionProvider {
    static final String RESOURCE = "version.properties";

    @Override
    public String[] getVersion() {
        return new String[] {"warden " + version()};
    }

    /** The build's version of warden; throws if the build did not record it. */
    static String version() {
        try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
            return read(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE + " of dev.warden.cli", e);
        }
    }

    static String read(InputStream in) throws IOException {
        if (in == null) {
            throw new IllegalStateException(RESOURCE + " of dev.warden.cli is missing: this jar was not built by"
                    + " warden-cli's Maven build");
        }
        Properties properties = new Properties();
        properties.load(in);
        String version = properties.getProperty("version", "").strip();
        if (version.isEmpty() || version.contains("${")) {
            throw new IllegalStateException(RESOURCE + " of dev.warden.cli holds no version ('" + version
                    + "'): the build did not filter it");
        }
        return version;
    }
}
