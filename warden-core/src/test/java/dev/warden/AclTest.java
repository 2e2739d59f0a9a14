package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.warden.redisserver.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Least privilege: a Redis user created by the ACL rule in docs/acl.md, read from there, uses every feature with
 * nothing refused; a user missing one right gets a {@link LockException} naming it at once, never a hang or an
 * empty result.
 */
@Timeout(120)
class AclTest extends RedisTestSupport {
    /** docs/acl.md, from the module directory, where the build runs the tests. */
    private static final Path DOC = Path.of("..", "docs", "acl.md");
    private static final Path SCRIPTS = Path.of("src/main/resources/dev/warden/internal/script");
    private static final String USER = "warden";
    private static final String PASSWORD = "acl-test-secret";
    /** The commands the client sends besides those the scripts name: the scripts are passed PUBLISH. */
    private static final Set<String> CLIENT_COMMANDS = Set.of("set", "eval", "evalsha", "subscribe", "unsubscribe",
            "publish", "info", "scan", "wait");
    /** A wait far longer than any refusal may take to be reported. */
    private static final Duration LONG_WAIT = Duration.ofSeconds(20);
    private static final Duration PROMPTLY = Duration.ofSeconds(3);

    /** The rule's words after {@code ACL SETUSER warden}, as docs/acl.md gives them, with this test's password. */
    static List<String> rule() throws IOException {
        String prefix = "ACL SETUSER " + USER + " ";
        String line = Files.readString(DOC, StandardCharsets.UTF_8).lines().filter(l -> l.startsWith(prefix))
                .findFirst().orElseThrow(() -> new AssertionError(DOC + " has no line starting with " + prefix));
        return Stream.of(line.substring(prefix.length()).split(" +"))
                .map(word -> word.startsWith(">") ? ">" + PASSWORD : word).collect(Collectors.toList());
    }

    @Test
    void theReadmeShowsTheRuleOfDocsAcl() throws IOException {
        String prefix = "ACL SETUSER " + USER + " ";
        String doc = Files.readString(DOC, StandardCharsets.UTF_8).lines().filter(l -> l.startsWith(prefix))
                .findFirst().orElseThrow();
        assertThat(Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8).lines()).contains(doc);
    }

    /** The commands the rule allows, lower case, without the {@code +}. */
    private static Set<String> granted() throws IOException {
        return rule().stream().filter(word -> word.startsWith("+")).map(word -> word.substring(1))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Creates (or replaces) the user with the rule, changed by {@code edit}, and returns a client logged in as it. */
    private LockClient userWith(UnaryOperator<List<String>> edit) throws IOException {
        List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", USER, "reset"));
        command.addAll(edit.apply(new ArrayList<>(rule())));
        server.call(command.toArray(String[]::new));
        return asUser(b -> { });
    }

    private LockClient asUser(java.util.function.Consumer<LockConfig.Builder> settings) {
        return client(b -> {
            b.redisUri("redis://" + USER + ":" + PASSWORD + "@" + server.host() + ":" + server.port())
                    .keyPrefix(LockConfig.DEFAULT_KEY_PREFIX);
            settings.accept(b);
        });
    }

    private static UnaryOperator<List<String>> without(String... words) {
        return rule -> {
            assertThat(rule).as("the rule has them").contains(words);
            rule.removeAll(List.of(words));
            return rule;
        };
    }

    /** A client of the default user (all rights), with the default prefix. */
    private LockClient admin() {
        return client(b -> b.keyPrefix(LockConfig.DEFAULT_KEY_PREFIX));
    }

    /**
     * The ACL log's entries: every refusal since the last reset, scripts' commands included; but for Lettuce's
     * {@code CLIENT SETINFO} after each connect, whose refusal it ignores. Redis 7.0 has no such subcommand (and
     * rejects the rule {@code +client|setinfo}), so it answers with an error the log does not record; Redis 6.2
     * checks the rights before the subcommand and logs a refusal of {@code client}.
     */
    private static List<?> aclLog() {
        return ((List<?>) server.call("ACL", "LOG")).stream()
                .filter(entry -> !"client".equals(((List<?>) entry).get(((List<?>) entry).indexOf("object") + 1)))
                .collect(Collectors.toList());
    }

    @Test
    void theRuleAllowsExactlyTheCommandsTheScriptsCallAndTheClientSends() throws IOException {
        Set<String> needed = new TreeSet<>(CLIENT_COMMANDS);
        Pattern call = Pattern.compile("redis\\.p?call\\(\\s*'(\\w+)'");
        try (Stream<Path> files = Files.list(SCRIPTS)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".lua")).collect(Collectors.toList())) {
                Matcher m = call.matcher(Files.readString(file, StandardCharsets.UTF_8));
                while (m.find()) {
                    needed.add(m.group(1).toLowerCase(Locale.ROOT));
                }
            }
        }
        // The scripts' PUBSUB picks its subcommand as it runs: NUMSUB, or SHARDNUMSUB in a cluster (ClusterAclTest).
        assertThat(needed.remove("pubsub")).as("a script calls PUBSUB").isTrue();
        needed.add("pubsub|numsub");
        assertThat(granted()).isEqualTo(needed);
        assertThat(rule()).startsWith("on").contains("resetkeys", "~warden:*", "resetchannels", "&warden:*", "-@all");
    }

    @Test
    void aUserWithTheRuleUsesEveryFeatureAndNothingIsRefused() throws Exception {
        server.call("ACL", "LOG", "RESET");
        LockClient a = userWith(rule -> rule);
        LockClient b = asUser(settings -> { });

        // A lock, its fencing token, a waiter of another client granted by the release (PUBLISH, SUBSCRIBE).
        DistributedLock lock = a.lock("orders:42");
        Lease first = lock.acquire();
        long firstFence = first.fencingToken();
        assertThat(b.lock("orders:42").tryAcquire()).isEmpty();
        CompletableFuture<Optional<Lease>> waiter = b.lock("orders:42").tryAcquireAsync(LONG_WAIT);
        assertThat(eventually(PROMPTLY, () -> lock.inspect().waiters() == 1)).isTrue();
        LockInfo info = lock.inspect();
        assertThat(info.held()).isTrue();
        assertThat(info.lastFencingToken()).isEqualTo(firstFence);
        assertThat(first.release()).isTrue();
        Lease second = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(second.fencingToken()).isGreaterThan(firstFence);

        // Inspect and force release, with a waiter to wake.
        CompletableFuture<Optional<Lease>> woken = a.lock("orders:42").tryAcquireAsync(LONG_WAIT);
        assertThat(eventually(PROMPTLY, () -> lock.inspect().waiters() == 1)).isTrue();
        assertThat(b.lock("orders:42").forceRelease()).hasValue(second.fencingToken());
        Lease third = woken.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
        assertThat(third.release()).isTrue();
        assertThat(lock.isLocked()).isFalse();

        // Read-write lock: two readers, a writer waiting for both.
        DistributedReadWriteLock rw = a.readWriteLock("report");
        Lease reader = rw.readLock().tryAcquire().orElseThrow();
        Lease otherReader = b.readWriteLock("report").readLock().tryAcquire().orElseThrow();
        // From another thread: this one holds a read lock, and an upgrade is refused.
        CompletableFuture<Optional<Lease>> writer = CompletableFuture.supplyAsync(() ->
                b.readWriteLock("report").writeLock().tryAcquireAsync(LONG_WAIT)).join();
        assertThat(eventually(PROMPTLY, () -> rw.inspect().waiters() == 1)).isTrue();
        assertThat(rw.inspect().readers()).isEqualTo(2);
        assertThat(reader.release()).isTrue();
        assertThat(otherReader.release()).isTrue();
        Lease write = writer.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(rw.inspect().writeLocked()).isTrue();
        assertThat(write.release()).isTrue();

        // Semaphore: all permits taken, a waiter of another client served by the release.
        DistributedSemaphore semaphore = a.semaphore("exports", 2);
        Lease both = semaphore.tryAcquire(2).orElseThrow();
        assertThat(semaphore.available()).isZero();
        CompletableFuture<Optional<Lease>> permit = b.semaphore("exports", 2).tryAcquireAsync(1, LONG_WAIT);
        assertThat(eventually(PROMPTLY, () -> semaphore.inspect().waiters() == 1)).isTrue();
        assertThat(both.release()).isTrue();
        Lease one = permit.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(semaphore.available()).isEqualTo(1);
        assertThat(one.release()).isTrue();

        // Multi-lock: one part held elsewhere, so the other client waits for it.
        Lease part = a.lock("ledger").tryAcquire().orElseThrow();
        DistributedMultiLock multi = b.multiLock(List.of("ledger", "invoices"));
        CompletableFuture<Optional<MultiLease>> all = multi.tryAcquireAsync(LONG_WAIT);
        assertThat(eventually(PROMPTLY, () -> a.lock("ledger").inspect().waiters() == 1)).isTrue();
        assertThat(part.release()).isTrue();
        Lease together = all.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(((MultiLease) together).fencingToken("invoices")).isPositive();

        // Listing, while the multi-lock holds its two parts.
        assertThat(a.locks("*", 100)).extracting(LockInfo::name).containsExactly("invoices", "ledger");
        assertThat(together.release()).isTrue();

        // The watchdog renews short leases past their end, a lock's and a semaphore's; meanwhile a permit with a
        // fixed lease ends unreleased, and its permits come back.
        LockClient renewing = asUser(settings -> settings.defaultLease(Duration.ofMillis(600)));
        Lease renewed = renewing.lock("nightly").acquire();
        Lease renewedPermit = renewing.semaphore("exports", 2).acquire(1);
        assertThat(b.semaphore("exports", 2).tryAcquire(1, Duration.ZERO, Duration.ofMillis(200))).isPresent();
        // The test's intent: past the leases' end (600 ms) and the fixed permit's (200 ms).
        Thread.sleep(1_500);
        assertThat(renewed.isHeld()).isTrue();
        assertThat(renewedPermit.isHeld()).isTrue();
        assertThat(a.lock("nightly").inspect().held()).isTrue();
        assertThat(semaphore.available()).isEqualTo(1);
        assertThat(renewed.release()).isTrue();
        assertThat(renewedPermit.release()).isTrue();

        // Replica acknowledgements (WAIT) from a real replica, and a waiter of such a lock, which does not queue.
        server.call("CONFIG", "SET", "repl-diskless-sync-delay", "0"); // Redis 7.0 waits 5 s by default
        try (RedisServer replica = RedisServer.builder()
                .args("--replicaof", server.host(), Integer.toString(server.port())).start()) {
            replica.awaitReplicaSync(Duration.ofSeconds(10));
            Duration ackWait = Duration.ofSeconds(1);
            Lease acked = a.lock("payments").withReplicaAcks(1, ackWait).tryAcquire().orElseThrow();
            assertThat(acked.acknowledgements()).isEqualTo(1);
            CompletableFuture<Optional<Lease>> ackedWaiter = b.lock("payments").withReplicaAcks(1, ackWait)
                    .tryAcquireAsync(LONG_WAIT);
            assertThat(eventually(PROMPTLY, () -> a.lock("payments").inspect().waiters() == 1)).isTrue();
            assertThat(acked.release()).isTrue();
            Lease next = ackedWaiter.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(next.acknowledgements()).isEqualTo(1);
            assertThat(next.release()).isTrue();
        }

        // Channels nobody waits on are given up after their linger (UNSUBSCRIBE).
        assertThat(eventually(Duration.ofSeconds(10), () -> calls("unsubscribe") > 0)).isTrue();

        assertThat(aclLog()).as("refusals").isEmpty();
        Set<String> unused = granted();
        // Redis 7 counts a subcommand ("pubsub|numsub") on its own; Redis 6.2 under its command ("pubsub").
        unused.removeIf(command -> calls(command) > 0 || calls(command.replaceFirst("\\|.*", "")) > 0);
        assertThat(unused).as("granted but never sent").isEmpty();
    }

    /** Asserts that a call fails with a {@link LockException} within {@link #PROMPTLY}, saying all of {@code texts}. */
    private static void refusedPromptly(ThrowingCallable call, String... texts) {
        long start = System.nanoTime();
        assertThatThrownBy(call).isInstanceOf(LockException.class).message().contains(texts);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PROMPTLY);
    }

    @Test
    void withoutEvalshaEveryOperationFailsNamingIt() throws Exception {
        Lease held = admin().lock("held").tryAcquire().orElseThrow();
        DistributedLock lock = userWith(without("+evalsha")).lock("held");
        String denied = "no permissions to run the 'evalsha' command";
        refusedPromptly(lock::tryAcquire, denied);
        refusedPromptly(() -> lock.tryAcquire(LONG_WAIT), denied);
        refusedPromptly(lock::acquire, denied);
        refusedPromptly(lock::inspect, denied);
        held.release();
    }

    @Test
    void withoutEvalAScriptTheServerLostFailsNamingIt() throws Exception {
        DistributedLock lock = userWith(without("+eval")).lock("flushed");
        // Cached scripts run by SHA; after a restart or SCRIPT FLUSH, the client must send the source with EVAL.
        lock.tryAcquire().orElseThrow().release();
        server.call("SCRIPT", "FLUSH");
        refusedPromptly(lock::tryAcquire, "no permissions to run the 'eval' command");
    }

    @Test
    void withoutSubscribeAWaitFailsAtOnceNamingIt() throws Exception {
        LockClient admin = admin();
        Lease held = admin.lock("held").tryAcquire().orElseThrow();
        Lease write = admin.readWriteLock("rw").writeLock().tryAcquire().orElseThrow();
        Lease permit = admin.semaphore("sem", 1).tryAcquire(1).orElseThrow();
        LockClient user = userWith(without("+subscribe"));
        String denied = "no permissions to run the 'subscribe' command";
        refusedPromptly(() -> user.lock("held").tryAcquire(LONG_WAIT), denied);
        refusedPromptly(() -> user.readWriteLock("rw").readLock().tryAcquire(LONG_WAIT), denied);
        refusedPromptly(() -> user.semaphore("sem", 1).tryAcquire(1, LONG_WAIT), denied);
        refusedPromptly(() -> user.multiLock(List.of("free", "held")).tryAcquire(LONG_WAIT), denied);
        // Trying once needs no subscription.
        assertThat(user.lock("held").tryAcquire()).isEmpty();
        held.release();
        write.release();
        permit.release();
    }

    @Test
    void withoutTheChannelPatternAWaitFailsAtOnceAndAReleaseThatMustTellAWaiterNamesPublish() throws Exception {
        LockClient admin = admin();
        Lease held = admin.lock("held").tryAcquire().orElseThrow();
        LockClient user = userWith(rule -> {
            rule.remove("&warden:*");
            return rule;
        });
        refusedPromptly(() -> user.lock("held").tryAcquire(LONG_WAIT), "no permissions to access one of the channels");
        held.release();

        // The user holds; a waiter of another client queues; the release grants it the lock, but cannot tell it.
        // A lease of 3 s: the waiter, registered quietly, tries again when the holder's TTL it was told runs out.
        Lease mine = user.lock("told").tryAcquire(Duration.ZERO, Duration.ofSeconds(3)).orElseThrow();
        CompletableFuture<Optional<Lease>> waiter = admin.lock("told").tryAcquireAsync(LONG_WAIT);
        assertThat(eventually(PROMPTLY, () -> admin.lock("told").inspect().waiters() == 1)).isTrue();
        refusedPromptly(mine::release, "of script release-queued calls PUBLISH)");
        // The grant stands in Redis: the waiter finds it by its next try, without the message.
        Lease granted = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(granted.release()).isTrue();
    }

    @Test
    void withoutTheKeyPatternEveryOperationFailsNamingTheKey() throws Exception {
        Lease held = admin().lock("held").tryAcquire().orElseThrow();
        LockClient user = userWith(rule -> {
            rule.set(rule.indexOf("~warden:*"), "~other:*");
            return rule;
        });
        String denied = "no permissions to access one of the keys";
        refusedPromptly(() -> user.lock("free").tryAcquire(), denied, "warden:{free}");
        refusedPromptly(() -> user.lock("free").acquire(), denied, "warden:{free}");
        refusedPromptly(() -> user.lock("held").tryAcquire(LONG_WAIT), denied, "warden:{held}");
        refusedPromptly(() -> user.readWriteLock("rw").writeLock().tryAcquire(LONG_WAIT), denied, "warden:{rw}");
        refusedPromptly(() -> user.semaphore("sem", 2).tryAcquire(1, LONG_WAIT), denied, "warden:{sem}");
        refusedPromptly(() -> user.lock("held").inspect(), denied);
        held.release();
    }

    @Test
    void withoutSetAnAcquireFailsNamingItInAScriptToo() throws Exception {
        DistributedLock lock = userWith(without("+set")).lock("free");
        // The first try of a blocking acquire is a plain SET NX.
        refusedPromptly(lock::acquire, "no permissions to run the 'set' command");
        refusedPromptly(() -> lock.tryAcquire(LONG_WAIT), "no permissions to run the 'set' command");
        // A single try is a script, which Redis refuses by line; the client names the command on it.
        refusedPromptly(lock::tryAcquire, "can't run this command", "of script acquire-queued calls SET)");
    }

    @Test
    void aCommandRefusedInsideAScriptIsNamed() throws Exception {
        Lease held = admin().lock("held").tryAcquire().orElseThrow();
        LockClient user = userWith(without("+zadd"));
        // Joining the queue adds the waiter to a sorted set.
        refusedPromptly(() -> user.lock("held").tryAcquire(LONG_WAIT), "can't run this command",
                "of script acquire-queued calls ZADD)");
        held.release();
    }

    @Test
    void aWrongPasswordFailsTheClientAtOnce() {
        server.call("ACL", "SETUSER", USER, "reset", "on", ">right");
        long start = System.nanoTime();
        assertThatThrownBy(() -> asUser(b -> { })).isInstanceOf(LockConnectionException.class)
                .hasMessageContaining("Redis refused the connection: WRONGPASS");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(PROMPTLY);
    }

    /**
     * Under load, Lettuce's end of a refused handshake's channel can beat its report of the refusal ("Connection
     * closed prematurely", about 1 connect in 100 to 250 with a spinning thread per core here): the client tries
     * again rather than call a wrong password a network failure. Failed on the code before that with 2 of 500.
     */
    @Tag("full")
    @Test
    void aWrongPasswordIsNamedAsSuchUnderLoad() throws Exception {
        server.call("ACL", "SETUSER", USER, "reset", "on", ">right");
        List<String> misnamed = new ArrayList<>();
        try (Burners burners = Burners.start()) {
            for (int i = 0; i < 300; i++) {
                Throwable failure = catchThrowable(() -> asUser(b -> { }));
                assertThat(failure).isInstanceOf(LockConnectionException.class);
                if (!failure.getMessage().contains("Redis refused the connection: WRONGPASS")) {
                    misnamed.add(i + ": " + failure.getMessage() + causes(failure));
                }
            }
        }
        assertThat(misnamed).isEmpty();
    }

    /** The causes of a failure and what each suppressed, for a message. */
    private static String causes(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable e = failure; e != null; e = e.getCause()) {
            text.append(e == failure ? "" : " <- " + e);
            for (Throwable suppressed : e.getSuppressed()) {
                text.append(" (suppressed: ").append(suppressed).append(causes(suppressed)).append(')');
            }
        }
        return text.toString();
    }
}
