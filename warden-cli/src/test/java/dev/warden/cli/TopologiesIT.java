package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Identity;
import dev.warden.Lease;
import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.redisserver.RedisCluster;
import dev.warden.redisserver.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every command on every topology: a cluster, a quorum, a master named by Sentinel, and a server with a replica that
 * must acknowledge.
 */
// Tagged "full": slow (processes against several servers); in `mvn -B verify -Pfull` and CI.
@Tag("full")
class TopologiesIT {
    @Test
    void runAndInspectOnACluster() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(3)) {
            Cli.Result run = Cli.run("run", "job-c", "--redis", cluster.seedUri(), "--cluster", "--",
                    "sh", "-c", "echo token=$WARDEN_FENCING_TOKEN");
            assertThat(run.exit()).as("%s", run).isZero();
            assertThat(run.out()).matches("token=\\d+\\R");
            try (LockClient client = LockClient.create(LockConfig.builder().cluster(cluster.seedUri()).build())) {
                Lease held = client.lock("job-c").tryAcquire().orElseThrow();
                Cli.Result inspect = Cli.run("inspect", "job-c", "--redis", cluster.seedUri(), "--cluster");
                assertThat(inspect.exit()).as("%s", inspect).isZero();
                assertThat(inspect.out()).contains("state:         held");
                Cli.Result locks = Cli.run("locks", "job-*", "--redis", cluster.seedUri(), "--cluster");
                assertThat(locks.exit()).as("%s", locks).isZero();
                assertThat(locks.out()).contains("job-c");
                held.release();
            }
            Cli.Result both = Cli.run("inspect", "job-c", "--redis", cluster.seedUri(), "--cluster", "--quorum");
            assertThat(both.exit()).isEqualTo(ExitCodes.USAGE);
        }
    }

    @Test
    void runAndInspectOnAQuorum() throws Exception {
        try (RedisServer a = RedisServer.start(); RedisServer b = RedisServer.start();
             RedisServer c = RedisServer.start()) {
            String servers = a.uri() + "," + b.uri() + "," + c.uri();
            Cli.Result run = Cli.run("run", "job-q", "--redis", servers, "--quorum", "--",
                    "sh", "-c", "echo token=$WARDEN_FENCING_TOKEN");
            assertThat(run.exit()).as("%s", run).isZero();
            assertThat(run.out()).matches("token=\\d+\\R");
            try (LockClient client = LockClient.create(LockConfig.builder().quorum(a.uri(), b.uri(), c.uri())
                    .build())) {
                Lease held = client.lock("job-q").tryAcquire().orElseThrow();
                Cli.Result refused = Cli.run("run", "job-q", "--redis", servers, "--quorum", "--", "true");
                assertThat(refused.exit()).as("%s", refused).isEqualTo(ExitCodes.NOT_ACQUIRED);
                Cli.Result inspect = Cli.run("inspect", "job-q", "--redis", servers, "--quorum");
                assertThat(inspect.exit()).as("%s", inspect).isZero();
                assertThat(inspect.out()).contains("state:         held");
                held.release();
            }
            // A quorum has locks only: asking for a read lock there is a usage error, not an internal one.
            Cli.Result read = Cli.run("run", "job-q", "--read", "--redis", servers, "--quorum", "--", "true");
            assertThat(read.exit()).as("%s", read).isEqualTo(ExitCodes.USAGE);
            assertThat(read.err()).contains("not supported on a quorum");
        }
    }

    @Test
    void replicaAcknowledgementsAreRequiredWhenAsked() throws Exception {
        // Redis 7.0 waits 5 s by default before a replica's first (diskless) sync.
        try (RedisServer master = RedisServer.builder().args("--repl-diskless-sync-delay", "0").start();
             RedisServer replica = RedisServer.builder()
                     .args("--replicaof", master.host(), Integer.toString(master.port())).start()) {
            replica.awaitReplicaSync(Duration.ofSeconds(10));
            Cli.Result acked = Cli.run("run", "job-r", "--redis", master.uri(), "--replica-acks", "1", "--", "true");
            assertThat(acked.exit()).as("%s", acked).isZero();
            replica.pause();
            try {
                Cli.Result refused = Cli.run("run", "job-r", "--redis", master.uri(), "--replica-acks", "1",
                        "--replica-ack-timeout", "200ms", "--", "true");
                assertThat(refused.exit()).as("%s", refused).isEqualTo(ExitCodes.REDIS_UNAVAILABLE);
                assertThat(refused.err()).contains("acknowledged by 0 of 1 replicas");
            } finally {
                replica.resume();
            }
        }
    }

    @Test
    void runInspectAndLocksThroughSentinel() throws Exception {
        try (RedisServer master = RedisServer.start();
             RedisServer sentinel = RedisServer.builder().sentinel("locks", master.port(), 1, Duration.ofSeconds(60))
                     .start()) {
            String uri = "redis-sentinel://" + sentinel.host() + ":" + sentinel.port() + "#locks";
            Cli.Result run = Cli.run("run", "job-s", "--redis", uri, "--", "sh", "-c",
                    "echo token=$WARDEN_FENCING_TOKEN");
            assertThat(run.exit()).as("%s", run).isZero();
            assertThat(run.out()).matches("token=\\d+\\R");
            try (LockClient client = LockClient.create(LockConfig.builder().redisUri(uri).clientName("sentinel-user")
                    .build())) {
                Lease held = client.lock("job-s").tryAcquire().orElseThrow();
                // The holder's identity record is written from its client's scheduler right after the acquire.
                Await.eventually(Duration.ofSeconds(10),
                        () -> client.lock("job-s").inspect().holderIdentity().flatMap(Identity::threadName).isPresent());
                Cli.Result inspect = Cli.run("inspect", "job-s", "--redis", uri);
                assertThat(inspect.exit()).as("%s", inspect).isZero();
                assertThat(inspect.out()).contains("state:         held")
                        .containsPattern("held by:       sentinel-user-\\S{6} \\(.+, pid "
                                + ProcessHandle.current().pid() + ", thread ");
                Cli.Result locks = Cli.run("locks", "job-*", "--redis", uri);
                assertThat(locks.exit()).as("%s", locks).isZero();
                assertThat(locks.out()).contains("job-s").contains("sentinel-user-");
                // The data lives on the master Sentinel names.
                assertThat(master.call("EXISTS", "warden:{job-s}")).isEqualTo(1L);
                held.release();
            }
        }
    }
}
