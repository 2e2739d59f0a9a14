package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./warden} launcher at the repository's root, copied into a scratch tree and run by {@code sh} through
 * symlinks, with stand-ins on the PATH: a {@code java} that prints what it was asked to run, and an {@code mvn} that
 * records how it was called, then runs the real Maven with {@code -v} (so that Maven's own console output is seen,
 * with the launcher's settings, but nothing is built) and leaves an empty jar behind.
 */
@Timeout(120)
class LauncherTest {
    private static final Path LAUNCHER = Path.of("..", "warden").toAbsolutePath().normalize();

    @TempDir
    Path dir;
    private Path repo;
    private Path bin;

    @BeforeEach
    void scratchTree() throws IOException {
        repo = Files.createDirectories(dir.resolve("repo")).toRealPath();
        Files.copy(LAUNCHER, repo.resolve("warden"));
        executable(repo.resolve("warden"));
        Files.writeString(repo.resolve("pom.xml"), "<project/>\n");
        Files.createDirectories(repo.resolve("warden-cli/src/main/java"));
        Files.writeString(repo.resolve("warden-cli/src/main/java/Main.java"), "class Main {}\n");
        bin = Files.createDirectories(dir.resolve("bin"));
        Path maven = realMaven().orElseThrow(() -> new AssertionError("no mvn on the PATH: the launcher needs one"));
        script(bin.resolve("mvn"), "{ echo \"cwd=$PWD\"; echo \"args=$*\"; echo \"MAVEN_OPTS=$MAVEN_OPTS\"; } > "
                + dir.resolve("mvn.log"), "mkdir -p warden-cli/target && : > warden-cli/target/warden.jar",
                "exec " + maven + " \"$@\" -v");
        script(bin.resolve("java"), "echo \"java $*\"");
    }

    private static Optional<Path> realMaven() {
        return Arrays.stream(System.getenv("PATH").split(File.pathSeparator)).map(p -> Path.of(p, "mvn"))
                .filter(Files::isExecutable).findFirst();
    }

    private static void script(Path path, String... lines) throws IOException {
        Files.writeString(path, "#!/bin/sh\n" + String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        executable(path);
    }

    private static void executable(Path path) throws IOException {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** {@code elsewhere/warden} to the script by a relative link, and {@code chain/w} to that by an absolute one. */
    private Path linkChain() throws IOException {
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Files.createSymbolicLink(elsewhere.resolve("warden"), Path.of("..", "repo", "warden"));
        Path chain = Files.createDirectories(dir.resolve("chain"));
        return Files.createSymbolicLink(chain.resolve("w"), elsewhere.resolve("warden").toAbsolutePath());
    }

    private Cli.Result launch(Path launcher, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
        builder.environment().remove("MAVEN_OPTS");
        // From elsewhere: the launcher must not depend on the working directory.
        builder.directory(dir.toFile());
        File out = dir.resolve("out.txt").toFile();
        File err = dir.resolve("err.txt").toFile();
        Process process = builder.redirectOutput(out).redirectError(err).start();
        process.getOutputStream().close();
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the launcher did not finish within 90 s");
        }
        return new Cli.Result(process.exitValue(), Files.readString(out.toPath()), Files.readString(err.toPath()));
    }

    private void assertBuiltAndRanBesideTheScript(Cli.Result result) throws IOException {
        assertThat(result.exit()).as("%s", result).isZero();
        assertThat(result.out()).as("%s", result).isEqualTo("java -jar " + repo.resolve("warden-cli/target/warden.jar")
                + " --version\n");
        assertThat(Files.readAllLines(dir.resolve("mvn.log"))).as("%s", result).contains("cwd=" + repo);
    }

    @Test
    void throughAChainOfSymlinksTheJarBesideTheScriptIsBuiltAndRun() throws Exception {
        assertBuiltAndRanBesideTheScript(launch(linkChain(), "--version"));
    }

    @Test
    void withoutAWorkingReadlinkTheScriptFollowsTheLinksItself() throws Exception {
        // As on a system whose readlink has no -f (or no readlink at all).
        script(bin.resolve("readlink"), "exit 1");
        assertBuiltAndRanBesideTheScript(launch(linkChain(), "--version"));
    }

    @Test
    void theBuildIsQuietWithoutColoursOrEscapeCodesAndStaysInTheTree() throws Exception {
        Cli.Result first = launch(repo.resolve("warden"), "--version");
        assertThat(first.exit()).as("%s", first).isZero();
        List<String> log = Files.readAllLines(dir.resolve("mvn.log"));
        String args = log.stream().filter(l -> l.startsWith("args=")).findFirst().orElseThrow().substring(5);
        assertThat(args.split(" ")).as("%s", log).contains("-B", "-q", "-Dstyle.color=never", "package")
                .doesNotContain("install");
        // Maven 3.8's console library writes ESC[0m around its output even in batch mode, unless told not to.
        assertThat(first.err()).as("%s", first).doesNotContain("\u001b").contains("warden: building");
        Files.delete(dir.resolve("mvn.log"));
        Cli.Result second = launch(repo.resolve("warden"), "--version");
        assertThat(second.err()).as("the jar is newer than the sources: no build").isEmpty();
        assertThat(dir.resolve("mvn.log")).doesNotExist();
    }
}
