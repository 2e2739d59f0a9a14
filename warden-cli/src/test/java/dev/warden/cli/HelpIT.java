package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each command prints its own help on {@code --help}, before its required arguments are checked. The help is the
 * command line's, run in this JVM ({@link Cli#inProcess}); VersionIT runs the jar's process for a flag that prints
 * and exits 0.
 */
class HelpIT {

    @Test
    void everyCommandPrintsItsHelpWithoutItsRequiredArguments() throws Exception {
        for (List<String> command : List.of(List.of("run", "--help"), List.of("lead", "--help"),
                List.of("inspect", "-h"), List.of("locks", "--help"), List.of("release", "--help"),
                List.of("resize", "--help"), List.of("doctor", "--help"), List.of("demo", "--help"))) {
            Cli.Result result = Cli.inProcess(command.toArray(String[]::new));
            assertThat(result.exit()).as("%s: %s", command, result).isZero();
            assertThat(result.out()).as("%s", command).startsWith("Usage: warden " + command.get(0))
                    .contains("--redis=URI").contains("-h, --help");
            assertThat(result.err()).as("%s", command).isEmpty();
        }
        assertThat(Cli.inProcess("run", "--help").out()).contains("--wait=DURATION").contains("NAME")
                .contains("CMD");
    }

    @Test
    void eachCommandListsOnlyTheOptionsThatDoSomethingForIt() throws Exception {
        Map<String, List<String>> listed = new LinkedHashMap<>();
        Map<String, List<String>> notListed = new LinkedHashMap<>();
        for (String command : List.of("run", "lead")) {
            listed.put(command, List.of("--replica-acks=K", "--replica-ack-timeout=DURATION", "--cluster", "--quorum",
                    "--lease=DURATION", "--grace=DURATION", "--fair"));
            notListed.put(command, List.of());
        }
        for (String command : List.of("inspect", "locks", "release")) {
            listed.put(command, List.of("--cluster", "--quorum"));
            notListed.put(command, List.of("--replica-acks", "--replica-ack-timeout"));
        }
        // The doctor checks the replicas against --replica-acks; it finds a cluster by itself, and waits for no
        // acknowledgement. The demo runs on one server, without acknowledgements.
        listed.put("doctor", List.of("--replica-acks=K"));
        notListed.put("doctor", List.of("--replica-ack-timeout", "--cluster", "--quorum"));
        // A quorum has no semaphore to resize.
        listed.put("resize", List.of("--cluster"));
        notListed.put("resize", List.of("--replica-acks", "--replica-ack-timeout", "--quorum"));
        listed.put("demo", List.of());
        notListed.put("demo", List.of("--replica-acks", "--replica-ack-timeout", "--cluster", "--quorum"));
        for (String command : listed.keySet()) {
            String help = Cli.inProcess(command, "--help").out();
            assertThat(help).as("%s", command).startsWith("Usage: warden " + command);
            for (String option : listed.get(command)) {
                assertThat(help).as("%s", command).contains(option);
            }
            for (String option : notListed.get(command)) {
                assertThat(help).as("%s", command).doesNotContain(option);
            }
        }
        // What is not listed still says why it does not apply.
        Cli.Result cluster = Cli.inProcess("doctor", "--cluster");
        assertThat(cluster.exit()).as("%s", cluster).isEqualTo(ExitCodes.USAGE);
        assertThat(cluster.err()).contains("doctor checks one server at a time");
    }

    @Test
    void theHelpSaysHowLongALeaseMayBeAndWhatANameMayHold() throws Exception {
        String run = Cli.inProcess("run", "--help").out().replaceAll("\\s+", " ");
        assertThat(run).containsPattern("--lease=DURATION [^=]*at most 24h");
        assertThat(run).contains("NAME the lock's name: any characters");
        String locks = Cli.inProcess("locks", "--help").out().replaceAll("\\s+", " ");
        assertThat(locks).contains("--literal");
    }

    @Test
    void helpWrapsAtEightyColumnsOffATerminal() throws Exception {
        Cli.Result result = Cli.inProcess("run", "--help");
        assertThat(result.out().lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(80));
    }

    @Test
    void generateCompletionPrintsABashCompletionScriptThatKnowsTheCommands() throws Exception {
        Cli.Result result = Cli.inProcess("generate-completion");
        assertThat(result.exit()).as("%s", result).isZero();
        assertThat(result.out()).contains("complete -F").contains("doctor").contains("inspect").contains("--wait");
        assertThat(Cli.inProcess("--help").out()).contains("generate-completion");
    }
}
