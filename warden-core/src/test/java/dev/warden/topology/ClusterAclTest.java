package dev.warden.topology;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Await;
import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.LockInfo;
import dev.warden.redisserver.RedisCluster;
import dev.warden.redisserver.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/acl.md's rule with its Cluster additions, on every node of a real cluster: locks on every node's slots, a
 * waiter granted by another client's release, a semaphore's waiter, inspect and the listing, and nothing refused.
 */
// Tagged "full": starts replicas, Sentinels or a cluster (minutes together); in `mvn -B verify -Pfull` and CI.
@Tag("full")
@Timeout(120)
class ClusterAclTest {
    private static final Path DOC = Path.of("..", "docs", "acl.md");
    private static final List<String> SHARDED = List.of("+ssubscribe", "+sunsubscribe", "+spublish",
            "+pubsub|shardnumsub");

    /** The words after {@code ACL SETUSER warden} of docs/acl.md's first line that starts so and continues so. */
    private static List<String> words(String start) throws IOException {
        String prefix = "ACL SETUSER warden ";
        String line = Files.readString(DOC, StandardCharsets.UTF_8).lines()
                .filter(l -> l.startsWith(prefix + start)).findFirst()
                .orElseThrow(() -> new AssertionError(DOC + " has no line starting with " + prefix + start));
        return List.of(line.substring(prefix.length()).split(" +"));
    }

    @Test
    void aUserWithTheRuleAndTheClusterAdditionsLocksOnEveryNode() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(3)) {
            List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", "warden", "reset"));
            words("on ").forEach(word -> command.add(word.startsWith(">") ? ">pw" : word));
            List<String> additions = new ArrayList<>(words("+"));
            assertThat(additions).containsAll(SHARDED);
            if (cluster.nodes().get(0).majorVersion() < 7) {
                // Sharded pub/sub came with Redis 7: before it, Warden uses SUBSCRIBE and PUBLISH in a cluster too,
                // and Redis 6.2 refuses a rule that names commands it does not have.
                additions.removeAll(SHARDED);
            }
            command.addAll(additions);
            for (RedisServer node : cluster.nodes()) {
                node.call(command.toArray(String[]::new));
                node.call("ACL", "LOG", "RESET");
            }
            LockConfig config = LockConfig.builder()
                    .cluster(cluster.seedUri().replace("redis://", "redis://warden:pw@"))
                    .commandTimeout(Duration.ofSeconds(2)).build();
            try (LockClient a = LockClient.create(config); LockClient b = LockClient.create(config)) {
                for (int i = 0; i < 6; i++) {
                    Lease lease = a.lock("job-" + i).acquire();
                    long fence = lease.fencingToken();
                    CompletableFuture<Optional<Lease>> waiter = b.lock("job-" + i)
                            .tryAcquireAsync(Duration.ofSeconds(20));
                    DistributedLock observed = a.lock("job-" + i);
                    Await.await(() -> observed.inspect().waiters() == 1, Duration.ofSeconds(5),
                            "a waiter of " + observed.name());
                    assertThat(lease.release()).isTrue();
                    Lease next = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
                    assertThat(next.fencingToken()).isGreaterThan(fence);
                    assertThat(next.release()).isTrue();
                }
                Lease permit = a.semaphore("exports", 1).acquire(1);
                CompletableFuture<Optional<Lease>> waiter = b.semaphore("exports", 1)
                        .tryAcquireAsync(1, Duration.ofSeconds(20));
                Await.await(() -> a.semaphore("exports", 1).inspect().waiters() == 1, Duration.ofSeconds(5),
                        "a waiter of semaphore exports");
                assertThat(permit.release()).isTrue();
                assertThat(waiter.get(10, TimeUnit.SECONDS).orElseThrow().release()).isTrue();
                Lease held = a.lock("held").acquire();
                assertThat(b.lock("held").inspect().held()).isTrue();
                assertThat(b.locks("*", 100)).extracting(LockInfo::name).containsExactly("held");
                assertThat(held.release()).isTrue();
            }
            for (RedisServer node : cluster.nodes()) {
                // Lettuce's CLIENT SETINFO, whose refusal it ignores, is logged by Redis 6.2 (see AclTest).
                assertThat(((List<?>) node.call("ACL", "LOG")).stream().map(Object::toString)
                        .filter(entry -> !entry.contains("object, client,")).collect(Collectors.toList()))
                        .as("refusals on port %d", node.port()).isEmpty();
            }
        }
    }
}
