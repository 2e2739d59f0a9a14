package dev.warden.cli;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the built {@code warden.jar} as a real process; or, where a test is about what a command prints and the code it
 * ends with rather than about the process, the same command line in this JVM ({@link #inProcess}), which saves the
 * start of a JVM (about half a second to two seconds each on two busy cores).
 */
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

    /**
     * {@code java -jar warden.jar ARGS}, with the JIT's first tier only (-XX:TieredStopAtLevel=1): a command that
     * lives a second or two never gets to use the second, whose compiling costs CPU on cores the tests share. An
     * {@code inspect} took 1.3-1.7 s of CPU so instead of 2.4-3.4 s (2026-11-28, a load average of about 5).
     */
    static ProcessBuilder builder(Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:TieredStopAtLevel=1",
                "-jar", JAR.toString()));
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

    /**
     * Runs the command line in this JVM, as {@code Main.main} does but without its {@code System.exit}: the exit
     * code is what {@code main} would exit with, and the output is what the command and everything else in this JVM
     * wrote meanwhile (System.out and System.err are captured too, so that a log line or a stack trace printed
     * beside the command's own output is seen as it would be from the process). For the command line's own checks,
     * its help and the output of inspect, release and resize; not for {@code run} past the checks of its options
     * (it installs signal handlers and starts the command), nor for the demo (it starts processes), nor with an
     * environment of the test's own, nor with {@code --verbose} (which {@code main} reads first). When this JVM's
     * environment has WARDEN_REDIS, which {@link #builder} keeps from the process, the command runs as a process
     * instead.
     */
    static synchronized Result inProcess(String... args) throws IOException, InterruptedException {
        if (System.getenv("WARDEN_REDIS") != null) {
            return run(args);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintWriter outWriter = new PrintWriter(outStream, true);
        PrintWriter errWriter = new PrintWriter(errStream, true);
        int exit;
        System.setOut(outStream);
        System.setErr(errStream);
        try {
            picocli.CommandLine cli = Main.commandLine();
            cli.setOut(outWriter);
            cli.setErr(errWriter);
            exit = cli.execute(args);
        } finally {
            outWriter.flush();
            errWriter.flush();
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
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
