package dev.warden.topology;

import dev.warden.Await;
import dev.warden.redisserver.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * The user of docs/acl.md's rule on the servers of a topology test. The rule is read from the page as
 * {@code AclTest.rule()} reads it (package-private in {@code dev.warden}, so read again here, as
 * {@link ClusterAclTest} does): the words after {@code ACL SETUSER warden } of the first line that starts so.
 */
final class AclUser {
    static final String USER = "warden";
    static final String PASSWORD = "acl-topology-secret";
    private static final Path DOC = Path.of("..", "docs", "acl.md");

    private AclUser() {
    }

    /** The rule's words after {@code ACL SETUSER warden}, as docs/acl.md gives them, with this test's password. */
    static List<String> rule() throws IOException {
        String prefix = "ACL SETUSER " + USER + " ";
        String line = Files.readString(DOC, StandardCharsets.UTF_8).lines().filter(l -> l.startsWith(prefix))
                .findFirst().orElseThrow(() -> new AssertionError(DOC + " has no line starting with " + prefix));
        return List.of(line.substring(prefix.length()).split(" +")).stream()
                .map(word -> word.startsWith(">") ? ">" + PASSWORD : word).collect(Collectors.toList());
    }

    /** The rule without {@code words}, which it must have. */
    static UnaryOperator<List<String>> without(String... words) {
        return rule -> {
            if (!rule.containsAll(List.of(words))) {
                throw new AssertionError("the rule lacks one of " + List.of(words) + ": " + rule);
            }
            rule.removeAll(List.of(words));
            return rule;
        };
    }

    /** Creates (or replaces) the user on {@code node} with the rule, changed by {@code edit}; empties the ACL log. */
    static void create(RedisServer node, UnaryOperator<List<String>> edit) throws IOException {
        List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", USER, "reset"));
        command.addAll(edit.apply(new ArrayList<>(rule())));
        node.call(command.toArray(String[]::new));
        node.call("ACL", "LOG", "RESET");
    }

    /** @return {@code redis://warden:<password>@127.0.0.1:<port>} for {@code node} */
    static String uri(RedisServer node) {
        return node.uri().replace("redis://", "redis://" + USER + ":" + PASSWORD + "@");
    }

    /**
     * The refusals {@code node} logged since its log was emptied, each as its fields; but for Lettuce's
     * {@code CLIENT SETINFO} after each connect, whose refusal it ignores and which Redis 6.2 logs as {@code client}
     * (see {@code AclTest.aclLog}).
     */
    static List<String> refusals(RedisServer node) {
        return ((List<?>) node.call("ACL", "LOG")).stream().map(entry -> (List<?>) entry)
                .filter(entry -> !"client".equals(entry.get(entry.indexOf("object") + 1)))
                .map(Object::toString).collect(Collectors.toList());
    }

    /** How many times {@code node} ran {@code command} since it started (or its last CONFIG RESETSTAT). */
    static long calls(RedisServer node, String command) {
        for (String line : ((String) node.call("INFO", "commandstats")).split("\r\n")) {
            if (line.startsWith("cmdstat_" + command + ":calls=")) {
                return Long.parseLong(line.replaceAll("^cmdstat_[^:]+:calls=(\\d+),.*", "$1"));
            }
        }
        return 0;
    }

    /** Whether {@code condition} holds within {@code bound} ({@link dev.warden.Await#eventually}). */
    static boolean eventually(Duration bound, BooleanSupplier condition) throws InterruptedException {
        return dev.warden.Await.eventually(bound, condition);
    }
}
