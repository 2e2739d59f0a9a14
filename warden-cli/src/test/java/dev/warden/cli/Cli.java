package dev.warden.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the built {@code warden.jar} as a real process. */
final class Cli {
    static final Path JAR = Path.of(System.getProperty("warden.jar", "target/warden.jar"));

    private Cli() {
    }

    /** The pom's version, which the build hands to the tests as {@code warden.version}. */
    static String pomVersion() {
        String version = System.getProperty("warden.version");
        if (version == null || version.isBlank()) {
            throw new IllegalStateException("warden.version is not set: warden-cli/pom.xml's failsafe configuration"
                    + " sets it to the pom's version");
        }
        return version;
    }

    /** The outcome of one finished run. */
    record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    static ProcessBuilder builder(Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove("WARDEN_REDIS");
        builder.environment().putAll(env);
        return builder;
    }

    static Result run(String... args) throws IOException, InterruptedException {
        return run(Map.of(), args);
    }

    static Result run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        return finish(start(env, args));
    }

    /** A started process whose output goes to files, so that it can never block on a full pipe. */
    static final class Running {
        final Process process;
        final File out;
        final File err;

        Running(Process process, File out, File err) {
            this.process = process;
            this.out = out;
            this.err = err;
        }
    }

    static Running start(Map<String, String> env, String... args) throws IOException {
        File out = File.createTempFile("warden-out", ".txt");
        File err = File.createTempFile("warden-err", ".txt");
        out.deleteOnExit();
        err.deleteOnExit();
        Process process = builder(env, args).redirectOutput(out).redirectError(err)
                .redirectInput(ProcessBuilder.Redirect.PIPE).start();
        process.getOutputStream().close();
        return new Running(process, out, err);
    }

    static Result finish(Running running) throws IOException, InterruptedException {
        if (!running.process.waitFor(180, TimeUnit.SECONDS)) {
            running.process.destroyForcibly();
            throw new AssertionError("warden did not finish within 180 s");
        }
        return new Result(running.process.exitValue(),
                Files.readString(running.out.toPath(), StandardCharsets.UTF_8),
                Files.readString(running.err.toPath(), StandardCharsets.UTF_8));
    }
}
