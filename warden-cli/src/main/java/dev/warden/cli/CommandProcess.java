package dev.warden.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The command that {@code warden run} runs while it holds a lock and {@code warden lead} while it leads: started with
 * warden's stdin, stdout and stderr and the variables warden gives it, sent the signals warden receives, and
 * terminated (SIGTERM to it and its descendants, SIGKILL after a grace period) when the lease under it is lost.
 */
final class CommandProcess {
    private final Process process;

    private CommandProcess(Process process) {
        this.process = process;
    }

    /**
     * Starts {@code command} with warden's streams and environment, plus {@code variables}.
     *
     * @throws IOException if it cannot be started; {@link #cannotStart} says so and gives the exit code
     */
    static CommandProcess start(List<String> command, Map<String, String> variables) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().putAll(variables);
        return new CommandProcess(builder.start());
    }

    /**
     * Says on stderr, in one line, why {@code command} could not be started.
     *
     * @return {@link ExitCodes#NOT_FOUND} or {@link ExitCodes#CANNOT_EXECUTE}, as a shell's
     */
    static int cannotStart(List<String> command, IOException e, PrintWriter err) {
        boolean missing = e.getMessage() != null && e.getMessage().contains("error=2,");
        err.println("warden: cannot run '" + command.get(0) + "': " + (missing ? "command not found"
                : e.getMessage()));
        err.flush();
        return missing ? ExitCodes.NOT_FOUND : ExitCodes.CANNOT_EXECUTE;
    }

    /** Sends the signal ({@code "INT"} or {@code "TERM"}) to the command, as kill(1) would; SIGTERM if that fails. */
    void signal(String signal) {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        } catch (IOException e) {
            process.destroy();
        }
    }

    /**
     * SIGTERM to the command and its descendants, SIGKILL to whatever still runs after {@code grace}; returns once the
     * command has exited or been sent SIGKILL.
     */
    void terminate(Duration grace) {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /** @return completes when the command has exited */
    CompletableFuture<Process> onExit() {
        return process.onExit();
    }

    /** @return whether the command has exited */
    boolean exited() {
        return !process.isAlive();
    }

    /** @return the command's exit code once it has exited: its own, or 128 + N if it died of signal N */
    int waitFor() throws InterruptedException {
        return process.waitFor();
    }

    /** @return the exit code of a process that died of the signal ({@code "INT"} or {@code "TERM"}), as a shell's */
    static int exitCode(String signal) {
        return 128 + ("INT".equals(signal) ? 2 : 15);
    }
}
