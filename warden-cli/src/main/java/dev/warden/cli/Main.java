package dev.warden.cli;

import dev.warden.LockException;
import java.io.PrintWriter;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code warden} command line. */
@Command(name = "warden", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Distributed locks on Redis from the command line.",
        subcommands = {DemoCommand.class, RunCommand.class, LeadCommand.class, InspectCommand.class,
                LocksCommand.class, ReleaseCommand.class, ResizeCommand.class, DoctorCommand.class, DemoWorker.class,
                CommandLine.HelpCommand.class, AutoComplete.GenerateCompletion.class},
        footer = {"", "Exit codes: the command's own for 'run' and 'lead'; 64 usage, 69 Redis unavailable, 70 internal "
                + "error, 75 lock not acquired (or not elected) within --wait, 76 lease lost while the command ran, 78 "
                + "'doctor' found an unsafe setting, 126/127 command not runnable."})
public final class Main {
    private Main() {
    }

    /**
     * Runs the command line and exits with its code.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        if (java.util.Arrays.asList(args).contains("--verbose") || java.util.Arrays.asList(args).contains("-v")) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Main());
        // Help text wraps at the terminal's width (80 columns off a terminal), not at a width chosen by hand.
        cli.setUsageHelpAutoWidth(true);
        // 'warden generate-completion' prints a bash/zsh completion script; listed in the help, which picocli
        // does not do by default.
        cli.getSubcommands().get("generate-completion").getCommandSpec().usageMessage().hidden(false);
        cli.setExecutionExceptionHandler(Main::onError);
        cli.setParameterExceptionHandler((ex, args) -> {
            PrintWriter err = ex.getCommandLine().getErr();
            err.println("warden: " + ex.getMessage());
            // "warden run", or "warden" itself: the name of the command whose help tells what went wrong.
            err.println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            return ExitCodes.USAGE;
        });
        return cli;
    }

    private static int onError(Exception ex, CommandLine cli, CommandLine.ParseResult parsed) {
        PrintWriter err = cli.getErr();
        boolean verbose = parsed.expandedArgs().contains("--verbose") || parsed.expandedArgs().contains("-v");
        String message = ex.getMessage() == null ? ex.toString() : ex.getMessage();
        int code;
        if (ex instanceof IllegalArgumentException || ex instanceof NullPointerException
                || ex instanceof UnsupportedOperationException) {
            code = ExitCodes.USAGE;
        } else if (ex instanceof LockException) {
            code = ExitCodes.REDIS_UNAVAILABLE;
        } else {
            code = ExitCodes.INTERNAL;
            message = ex.toString();
        }
        err.println("warden: " + message.lines().findFirst().orElse(message));
        if (verbose) {
            ex.printStackTrace(err);
        }
        return code;
    }
}
