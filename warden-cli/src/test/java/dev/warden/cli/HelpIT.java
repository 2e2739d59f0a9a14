package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Each command prints its own help on {@code --help}, before its required arguments are checked. */
class HelpIT {

    @Test
    void everyCommandPrintsItsHelpWithoutItsRequiredArguments() throws Exception {
        for (List<String> command : List.of(List.of("run", "--help"), List.of("inspect", "-h"), List.of("locks", "--help"),
                List.of("release", "--help"), List.of("doctor", "--help"), List.of("demo", "--help"))) {
            Cli.Result result = Cli.run(command.toArray(String[]::new));
            assertThat(result.exit()).as("%s: %s", command, result).isZero();
            assertThat(result.out()).as("%s", command).startsWith("Usage: warden " + command.get(0))
                    .contains("--redis=URI").contains("-h, --help");
            assertThat(result.err()).as("%s", command).isEmpty();
        }
        assertThat(Cli.run("run", "--help").out()).contains("--wait=DURATION").contains("NAME").contains("CMD");
    }

    @Test
    void helpWrapsAtEightyColumnsOffATerminal() throws Exception {
        Cli.Result result = Cli.run("run", "--help");
        assertThat(result.out().lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(80));
    }

    @Test
    void generateCompletionPrintsABashCompletionScriptThatKnowsTheCommands() throws Exception {
        Cli.Result result = Cli.run("generate-completion");
        assertThat(result.exit()).as("%s", result).isZero();
        assertThat(result.out()).contains("complete -F").contains("doctor").contains("inspect").contains("--wait");
        assertThat(Cli.run("--help").out()).contains("generate-completion");
    }
}
