package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code warden lead}'s command line, parsed and checked in this JVM: what each option sets, and that each bad value
 * is a usage error naming the option and the value as given, before anything connects (the Redis these runs name
 * has nothing listening, so a check that came after connecting would end in 69, not 64).
 */
class LeadCommandTest {
    private static final String NOWHERE = "redis://127.0.0.1:1";

    private record Outcome(int exit, String out, String err) {
    }

    private static Outcome execute(String... args) {
        CommandLine cli = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Outcome(exit, out.toString(), err.toString());
    }

    private static LeadCommand parse(String... args) {
        CommandLine.ParseResult parsed = Main.commandLine().parseArgs(args);
        return (LeadCommand) parsed.subcommand().commandSpec().userObject();
    }

    @Test
    void byDefaultACandidateWaitsAsLongAsItTakesWithTheLeaseAndGraceOfRun() {
        LeadCommand lead = parse("lead", "billing", "--", "./scheduler", "--once");
        assertThat(lead.name).isEqualTo("billing");
        assertThat(lead.command).containsExactly("./scheduler", "--once");
        assertThat(lead.wait).as("no --wait: wait as long as it takes").isNull();
        assertThat(lead.rejoin).isFalse();
        assertThat(lead.leasing.lease).isEqualTo(Duration.ofSeconds(30));
        assertThat(lead.leasing.grace).isEqualTo(Duration.ofSeconds(10));
        assertThat(lead.leasing.fair).isFalse();
        RunCommand run = (RunCommand) Main.commandLine().parseArgs("run", "billing", "--", "true").subcommand()
                .commandSpec().userObject();
        assertThat(run.leasing.lease).isEqualTo(lead.leasing.lease);
        assertThat(run.leasing.grace).isEqualTo(lead.leasing.grace);
    }

    @Test
    void everyOptionIsReadBeforeTheDoubleDashAndTheCommandKeepsItsOwn() {
        LeadCommand lead = parse("lead", "billing", "--rejoin", "--wait", "2m", "--lease", "5s", "--grace", "500ms",
                "--fair", "--", "worker", "--rejoin", "--wait", "1s");
        assertThat(lead.rejoin).isTrue();
        assertThat(lead.wait).isEqualTo(Duration.ofMinutes(2));
        assertThat(lead.leasing.lease).isEqualTo(Duration.ofSeconds(5));
        assertThat(lead.leasing.grace).isEqualTo(Duration.ofMillis(500));
        assertThat(lead.leasing.fair).isTrue();
        assertThat(lead.command).containsExactly("worker", "--rejoin", "--wait", "1s");
    }

    @Test
    void eachBadValueIsAUsageErrorNamingItsOptionAsGivenBeforeAnythingConnects() {
        Map<List<String>, String> cases = new LinkedHashMap<>();
        cases.put(List.of("--wait", "0"), "--wait must be positive: 0");
        cases.put(List.of("--wait", "PT-1S"), "--wait must be positive: PT-1S");
        cases.put(List.of("--wait", "25h"), "--wait must be at most 24h: 25h");
        cases.put(List.of("--lease", "0s"), "--lease must be positive: 0s");
        cases.put(List.of("--lease", "1441m"), "--lease must be at most 24h: 1441m");
        cases.put(List.of("--grace", "PT-1S"), "--grace must not be negative: PT-1S");
        cases.put(List.of("--grace", "86401s"), "--grace must be at most 24h: 86401s");
        cases.put(List.of("--timeout", "0"), "--timeout must be positive: 0");
        cases.put(List.of("--replica-acks", "-1"), "--replica-acks must not be negative: -1");
        cases.put(List.of("--wait", "10x"), "Invalid value for option '--wait': '10x' is not a duration (for "
                + "example 500ms, 10s, 2m, 1h)");
        for (Map.Entry<List<String>, String> c : cases.entrySet()) {
            List<String> args = new ArrayList<>(List.of("lead", "job", "--redis", NOWHERE));
            args.addAll(c.getKey());
            args.addAll(List.of("--", "true"));
            Outcome outcome = execute(args.toArray(String[]::new));
            assertThat(outcome.exit()).as("%s: %s", c.getKey(), outcome).isEqualTo(ExitCodes.USAGE);
            assertThat(outcome.err()).as("%s", c.getKey()).isEqualTo("warden: " + c.getValue()
                    + "\nTry 'warden lead --help'.\n");
            assertThat(outcome.out()).as("%s", c.getKey()).isEmpty();
        }
    }

    @Test
    void aCandidateNeedsANameAndACommand() {
        Outcome noCommand = execute("lead", "job", "--redis", NOWHERE);
        assertThat(noCommand.exit()).as("%s", noCommand).isEqualTo(ExitCodes.USAGE);
        assertThat(noCommand.err()).contains("CMD").endsWith("Try 'warden lead --help'.\n");
        Outcome nothing = execute("lead", "--redis", NOWHERE);
        assertThat(nothing.exit()).as("%s", nothing).isEqualTo(ExitCodes.USAGE);
        assertThat(nothing.err()).contains("NAME");
        Outcome unknown = execute("lead", "job", "--again", "--", "true");
        assertThat(unknown.exit()).as("%s", unknown).isEqualTo(ExitCodes.USAGE);
        assertThat(unknown.err()).contains("--again");
    }

    @Test
    void theHelpSaysWhereTheEpochIsWhatRejoinDoesAndTheExitCodes() {
        Outcome help = execute("lead", "--help");
        assertThat(help.exit()).as("%s", help).isZero();
        assertThat(help.out()).startsWith("Usage: warden lead").contains("--rejoin", "--wait=DURATION",
                "--grace=DURATION", "--lease=DURATION", "--replica-acks=K", "--cluster", "--quorum");
        assertThat(help.out().lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(80));
        String text = help.out().replaceAll("\\s+", " ");
        assertThat(text).contains("WARDEN_EPOCH").contains("exits with 76")
                .contains("steps down and exits with the command's exit code").contains("at most once a second");
        assertThat(execute("--help").out().replaceAll("\\s+", " ")).contains("lead")
                .contains("the command's own for 'run' and 'lead'");
    }
}
