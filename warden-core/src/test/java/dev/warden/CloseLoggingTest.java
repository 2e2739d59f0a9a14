package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing a client logs nothing at WARN: no connection is closed twice (Lettuce warns "Connection is already
 * closed" when one is), in a JVM whose Lettuce logs at WARN, as a user's would.
 */
class CloseLoggingTest extends RedisTestSupport {
    private static final int ROUNDS = 30;

    @Test
    void closingClientsLogsNoWarning(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("close.log");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-Dorg.slf4j.simpleLogger.log.io.lettuce=warn", "-Dorg.slf4j.simpleLogger.log.io.netty=warn",
                CloseQuietlyProcess.class.getName(), server.uri(), Integer.toString(ROUNDS))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
        } finally {
            child.destroyForcibly();
        }
        String output = Files.readString(log);
        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output).contains("closed " + ROUNDS + " rounds").doesNotContain("WARN").doesNotContain("ERROR");
    }
}
