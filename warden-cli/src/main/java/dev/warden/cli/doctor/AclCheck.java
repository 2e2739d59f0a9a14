package dev.warden.cli.doctor;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Whether the connected user may run Warden's commands on its keys and channels, from trials of each command on a
 * scratch lock under the key prefix. Trials need no admin rights, unlike {@code ACL DRYRUN} (Redis 7 only) or
 * {@code ACL GETUSER}, and they see renamed and disabled commands as well.
 */
final class AclCheck implements Check {
    static final String CODE = "ACL";

    @Override
    public List<String> codes() {
        return List.of(CODE);
    }

    @Override
    public List<Finding> run(DoctorProbe probe) {
        if (!probe.role().equals("master")) {
            return List.of(Finding.unchecked(CODE, probe.infoReply().ok() ? "role " + probe.role()
                    + ": not a master" : probe.infoFailure(), "the trials write scratch keys, which only a master "
                    + "accepts", "run warden doctor against the master"));
        }
        return List.of(AclTrials.run(probe));
    }

    /**
     * The outcome of one command's trial.
     *
     * @param command the command as Warden sends it, such as {@code ZPOPMIN (in scripts)}
     * @param needed  whether Warden needs it with the options given
     * @param when    when Warden uses it, for the report
     * @param error   the server's error, empty if the command ran
     */
    record Trial(String command, boolean needed, String when, Optional<String> error) {
    }

    /**
     * @param user   the user the doctor is connected as ({@code ACL WHOAMI}), or a description if unknown
     * @param prefix the key prefix the trials used
     * @param trials the trials, at least one
     * @return the finding
     */
    static Finding evaluate(String user, String prefix, List<Trial> trials) {
        List<Trial> failed = trials.stream().filter(t -> t.error().isPresent()).collect(Collectors.toList());
        List<Trial> blocking = failed.stream().filter(Trial::needed).collect(Collectors.toList());
        String observed = "user " + user + ": " + (trials.size() - failed.size()) + " of " + trials.size()
                + " commands ran on scratch keys and channels under '" + prefix + "'"
                + (failed.isEmpty() ? "" : "; refused: " + describe(failed))
                + (failed.stream().anyMatch(t -> t.command().equals("EVAL"))
                ? "; the commands the scripts call were not tried" : "");
        String scope = "checked with one scratch lock under the prefix, which stands for every lock name";
        if (!blocking.isEmpty()) {
            return Finding.unsafe(CODE, observed, "Warden needs " + blocking.stream().map(Trial::command)
                    .collect(Collectors.joining(", ")) + ": locks fail with errors where they are used",
                    "grant them, with the keys and channels under the prefix: ACL SETUSER " + user + " "
                            + blocking.stream().map(AclCheck::rule).filter(rule -> !rule.isEmpty()).distinct()
                            .map(rule -> rule + " ").collect(Collectors.joining()) + "~" + prefix + "* &" + prefix
                            + "*");
        }
        if (!failed.isEmpty()) {
            return Finding.warn(CODE, observed, "refused only commands that locks do not need with the options "
                    + "given: " + failed.stream().map(t -> t.command() + " for " + t.when())
                    .collect(Collectors.joining(", ")) + " (" + scope + ")", "grant them before using what needs "
                    + "them");
        }
        String inScripts = " (in scripts)";
        return Finding.ok(CODE, observed, "the user may run every command Warden sends (" + scope + "). Tried: "
                + trials.stream().map(Trial::command).filter(c -> !c.endsWith(inScripts))
                .collect(Collectors.joining(", ")) + "; in scripts: " + trials.stream().map(Trial::command)
                .filter(c -> c.endsWith(inScripts)).map(c -> c.substring(0, c.length() - inScripts.length()))
                .collect(Collectors.joining(", ")));
    }

    /**
     * @return the ACL rule that allows a refused command, such as {@code +client|setname}, {@code +pubsub|numsub}
     *         or {@code +zpopmin};
     *         empty where the command was allowed but its keys or channels were not (the patterns cover those)
     */
    static String rule(Trial trial) {
        String error = trial.error().orElse("");
        if (error.contains("keys") || error.contains("channels")) {
            return "";
        }
        String[] words = trial.command().toLowerCase(java.util.Locale.ROOT).split(" ");
        boolean bySubcommand = (words[0].equals("client") || words[0].equals("pubsub")) && words.length > 1;
        return bySubcommand ? "+" + words[0] + "|" + words[1] : "+" + words[0];
    }

    private static String describe(List<Trial> failed) {
        return failed.stream().map(t -> t.command() + " (" + t.error().orElse("") + ")")
                .collect(Collectors.joining(", "));
    }
}
