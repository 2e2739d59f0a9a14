package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

// ----- README.md's example, verbatim: from the next line to the end marker, this file holds README.md's first
// ----- java block after the line that starts with "<!-- ReadmeExampleTest", character for character. Edit both.
import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import java.time.Duration;

class OrdersExample {
    public static void main(String[] args) throws InterruptedException {
        // The database index comes from the URI; rediss:// (TLS) and user:password@ (ACL) work too.
        String redisUri = args.length > 0 ? args[0] : "redis://127.0.0.1:6379/0";
        try (LockClient client = LockClient.create(LockConfig.builder()   // one client for the whole application
                .redisUri(redisUri)
                .keyPrefix("lock:")
                .build())) {
            DistributedLock lock = client.lock("orders:42");

            try (Lease lease = lock.acquire()) {           // blocks until held; interruptible
                long fence = lease.fencingToken();         // hand this to the protected resource
                System.out.println("holding " + lease.lockName() + " with fencing token " + fence);
                // ... work; the watchdog keeps the lease alive ...
            }                                              // close() releases

            lock.tryAcquire().ifPresentOrElse(lease -> {   // one try: empty if someone else holds it
                try (lease) {
                    System.out.println("got " + lease.lockName() + " at once");
                }
            }, () -> System.out.println("someone else holds orders:42"));

            lock.tryAcquire(Duration.ofSeconds(5)).ifPresent(lease -> {   // waits up to 5 s
                try (lease) {
                    System.out.println("got " + lease.lockName() + " within 5 s");
                }
            });
        }                                                  // closing the client releases what it still holds
    }
}
// ----- end of README.md's example

/**
 * The README's usage example, run as written against a real server.
 *
 * <p>The example is README.md's first {@code ```java} block after the marker line that starts with
 * {@code <!-- ReadmeExampleTest} ({@link #MARKER}), in the section "Using it". This test checks that the block appears character for character
 * in this source file, where it is the class {@code OrdersExample} above, and then runs that class's {@code main}
 * against the test's redis-server, whose URI it passes as the example's one argument. The example must finish on its
 * own: one that waits for a lock it still holds fails after {@link #BOUND} instead of hanging the build.
 */
class ReadmeExampleTest extends RedisTestSupport {
    /** How README.md marks the example: the first {@code ```java} block after the line starting with this. */
    static final String MARKER = "<!-- ReadmeExampleTest";
    /** README.md, from the module directory, where the build runs the tests. */
    static final Path README = Path.of("..", "README.md");
    /** This file, from the module directory. */
    static final Path SOURCE = Path.of("src", "test", "java", "dev", "warden", "ReadmeExampleTest.java");
    /** How long the example may take; it needs well under a second. */
    static final java.time.Duration BOUND = java.time.Duration.ofSeconds(30);

    @Test
    void readmeExampleIsInThisFileVerbatimAndRunsToCompletion() throws Exception {
        List<String> readme = read(README, "README.md").lines().toList();
        int marker = indexOf(readme, 0, line -> line.startsWith(MARKER));
        assertThat(marker).as("README.md has no line starting with %s to mark its example", MARKER).isNotNegative();
        int open = indexOf(readme, marker + 1, line -> line.equals("```java"));
        assertThat(open).as("README.md has no ```java block after its marker (line %d)", marker + 1).isNotNegative();
        int close = indexOf(readme, open + 1, line -> line.equals("```"));
        assertThat(close).as("README.md's example (line %d) has no closing ```", open + 1).isPositive();
        List<String> example = readme.subList(open + 1, close);
        assertThat(example).as("README.md's example (line %d) is empty", open + 1).isNotEmpty();

        String source = read(SOURCE, "this test's source");
        assertThat(source.contains(String.join("\n", example) + "\n"))
                .as("README.md's example (lines %d-%d) is not in %s verbatim; the first line that differs is README.md"
                        + " line %s", open + 2, close, SOURCE, firstDifference(example, source, open + 2))
                .isTrue();

        assertTimeoutPreemptively(BOUND, () -> OrdersExample.main(new String[] {server.uri() + "/0"}),
                "README.md's example did not finish within " + BOUND + ": does it wait for a lock it still holds?");
        // It ran against this server: the lock is free again, and only its fencing counter is left.
        assertThat(server.call("GET", "lock:{orders:42}")).asString().matches("\\d+");
    }

    private static String read(Path path, String what) throws IOException {
        assertThat(path).as("%s not found at %s (the test runs in the warden-core module directory)", what,
                path.toAbsolutePath().normalize()).isRegularFile();
        return Files.readString(path).replace("\r\n", "\n");
    }

    private static int indexOf(List<String> lines, int from, Predicate<String> match) {
        for (int i = from; i < lines.size(); i++) {
            if (match.test(lines.get(i))) {
                return i;
            }
        }
        return -1;
    }

    /** The README line number and text of the first line of the example that breaks the match. */
    private static String firstDifference(List<String> example, String source, int firstLineNumber) {
        for (int n = 1; n <= example.size(); n++) {
            if (!source.contains(String.join("\n", example.subList(0, n)) + "\n")) {
                return (firstLineNumber + n - 1) + ": " + example.get(n - 1);
            }
        }
        return "none (all lines match)";
    }
}
