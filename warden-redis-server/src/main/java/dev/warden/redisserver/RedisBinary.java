package dev.warden.redisserver;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Map;

/**
 * Finds the {@code redis-server} executable: the path in the environment variable {@code REDIS_SERVER} when it is
 * set; otherwise a binary shipped inside a Maven artifact, extracted once into the temporary directory: Redis 7.0
 * from {@code org.signal:embedded-redis} by default, or Redis 6.2 from {@code com.github.codemonstur:embedded-redis}
 * when {@code WARDEN_REDIS_EMBEDDED} (or the system property {@code warden.redis.embedded}) says {@code 6.2}.
 */
public final class RedisBinary {
    /** The environment variable that names a redis-server binary to use instead of the embedded one. */
    public static final String ENV = "REDIS_SERVER";

    /** The environment variable that picks the embedded binary's version: {@value #DEFAULT_EMBEDDED} or 6.2. */
    public static final String EMBEDDED_ENV = "WARDEN_REDIS_EMBEDDED";
    /** The system property that picks the embedded binary's version, ahead of {@link #EMBEDDED_ENV}. */
    public static final String EMBEDDED_PROPERTY = "warden.redis.embedded";
    /** The embedded version used when neither {@link #EMBEDDED_ENV} nor {@link #EMBEDDED_PROPERTY} is set. */
    public static final String DEFAULT_EMBEDDED = "7.0";

    /** The binaries the two artifacts ship, by version and platform. */
    private static final Map<String, Map<String, String>> EMBEDDED = Map.of(
            "7.0", Map.of(
                    "linux-amd64", "redis-server-7.0.15-linux-amd64",
                    "linux-aarch64", "redis-server-7.0.15-linux-arm64",
                    "linux-x86", "redis-server-7.0.15-linux-386",
                    "mac-amd64", "redis-server-7.0.15-darwin-amd64",
                    "mac-aarch64", "redis-server-7.0.15-darwin-arm64"),
            "6.2", Map.of(
                    "linux-amd64", "redis-server-6.2.6-v5-linux-amd64",
                    "linux-aarch64", "redis-server-6.2.7-linux-arm64",
                    "linux-x86", "redis-server-6.2.7-linux-386",
                    "mac-amd64", "redis-server-6.2.6-v5-darwin-amd64",
                    "mac-aarch64", "redis-server-6.2.6-v5-darwin-arm64"));

    private static final java.util.concurrent.ConcurrentHashMap<Path, Integer> MAJOR_VERSIONS =
            new java.util.concurrent.ConcurrentHashMap<>();

    private RedisBinary() {
    }

    /**
     * Returns the major version of a redis-server binary, from {@code redis-server --version}.
     *
     * @param binary the executable
     * @return the major version, such as 6 or 7
     * @throws IllegalStateException if the version cannot be read
     */
    public static int majorVersion(Path binary) {
        return MAJOR_VERSIONS.computeIfAbsent(binary, RedisBinary::readMajorVersion);
    }

    private static int readMajorVersion(Path binary) {
        try {
            Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            p.waitFor();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("v=(\\d+)\\.").matcher(output);
            if (!m.find()) {
                throw new IllegalStateException("cannot read the version of " + binary + ": " + output.trim());
            }
            return Integer.parseInt(m.group(1));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + binary + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the redis-server version", e);
        }
    }

    /**
     * Returns the redis-server executable to run.
     *
     * @return an executable file
     * @throws IllegalStateException if {@code REDIS_SERVER} names a file that is not executable, the embedded version
     *                               asked for is not one of 7.0 and 6.2, or no embedded binary of it exists for
     *                               this operating system and architecture
     * @throws UncheckedIOException  if the embedded binary cannot be extracted
     */
    public static Path resolve() {
        String configured = System.getenv(ENV);
        if (configured != null && !configured.isBlank()) {
            Path path = Path.of(configured);
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException(ENV + " is not an executable file: " + configured);
            }
            return path;
        }
        return extractEmbedded(embeddedVersion());
    }

    /**
     * Returns the version of the embedded binary that {@link #resolve()} runs when {@code REDIS_SERVER} is not set.
     *
     * @return "7.0" or "6.2"
     * @throws IllegalStateException if the version asked for is neither
     */
    public static String embeddedVersion() {
        String asked = System.getProperty(EMBEDDED_PROPERTY);
        String source = EMBEDDED_PROPERTY;
        if (asked == null || asked.isBlank()) {
            asked = System.getenv(EMBEDDED_ENV);
            source = EMBEDDED_ENV;
        }
        if (asked == null || asked.isBlank()) {
            return DEFAULT_EMBEDDED;
        }
        String version = asked.trim();
        if (!EMBEDDED.containsKey(version)) {
            throw new IllegalStateException(source + " must be 7.0 or 6.2: " + asked);
        }
        return version;
    }

    /**
     * Returns the embedded binary of one version, extracted if needed, whatever {@link #embeddedVersion()} says.
     *
     * @param version "7.0" or "6.2"
     * @return an executable file
     * @throws IllegalStateException if there is no such version, or no binary of it for this platform
     * @throws UncheckedIOException  if the binary cannot be extracted
     */
    public static Path extractFor(String version) {
        if (!EMBEDDED.containsKey(version)) {
            throw new IllegalStateException("no embedded redis-server " + version + ": 7.0 or 6.2");
        }
        return extractEmbedded(version);
    }

    private static synchronized Path extractEmbedded(String version) {
        String platform = platform();
        String resource = EMBEDDED.get(version).get(platform);
        if (resource == null) {
            throw new IllegalStateException("no embedded redis-server " + version + " for " + platform + "; set " + ENV);
        }
        try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the embedded-redis artifact with Redis " + version
                        + " is missing from the class path (" + resource + "); set " + ENV + " to a redis-server");
            }
            byte[] bytes = in.readAllBytes();
            Path dir = Path.of(System.getProperty("java.io.tmpdir"), "warden-redis-" + System.getProperty("user.name"));
            Files.createDirectories(dir);
            Path target = dir.resolve(resource);
            if (!Files.isExecutable(target) || Files.size(target) != bytes.length) {
                // Write to a private file and move it into place, so concurrent JVMs never run a half-written binary.
                Path partial = Files.createTempFile(dir, resource, ".part");
                Files.write(partial, bytes);
                if (!partial.toFile().setExecutable(true, false)) {
                    throw new IOException("cannot make executable: " + partial);
                }
                Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract the embedded redis-server " + resource, e);
        }
    }

    private static String platform() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String family = os.contains("mac") ? "mac" : os.contains("linux") ? "linux" : os;
        String cpu = switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "aarch64";
            case "x86", "i386", "i686" -> "x86";
            default -> arch;
        };
        return family + "-" + cpu;
    }
}
