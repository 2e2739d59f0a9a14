package dev.warden.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.redisserver.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;

/**
 * What the leader-initiator tests share: a real Redis emptied before each test, clients closed after it (after the
 * subclass's own {@code @AfterEach} has stopped its initiators), fresh role names, and the leader events each
 * initiator published, in order.
 */
@Timeout(60)
abstract class LeaderTestSupport {
    /** How long a test waits for a leader event or a condition. */
    static final Duration WAIT = Duration.ofSeconds(10);
    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();
    private static final AtomicInteger ROLES = new AtomicInteger();
    private final List<LockClient> clients = new ArrayList<>();
    /**
     * The leader events each initiator published, in order. Apart, because two initiators are as two processes: a
     * new leader, woken by the release in Redis, may publish its granted event before the old one its revoked.
     */
    private final Map<Object, BlockingQueue<AbstractLeaderEvent>> events = new ConcurrentHashMap<>();
    /** A client of no initiator, to look at the election's lock. */
    LockClient observer;

    @BeforeEach
    void empty() {
        REDIS.server().call("FLUSHALL");
        observer = client(null);
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    /** A publisher that records each leader event under its source (the initiator), for {@link #next}. */
    DefaultLeaderEventPublisher recordingPublisher() {
        return new DefaultLeaderEventPublisher(event -> {
            if (event instanceof AbstractLeaderEvent leader) {
                events(leader.getSource()).add(leader);
            }
        });
    }

    /** The next leader event {@code from} published, within {@link #WAIT}, which must be a {@code type}. */
    AbstractLeaderEvent next(Class<? extends AbstractLeaderEvent> type, Object from) throws InterruptedException {
        AbstractLeaderEvent event = events(from).poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(event).as("a %s within %s", type.getSimpleName(), WAIT).isNotNull();
        assertThat(event).isInstanceOf(type);
        assertThat(event.getSource()).isSameAs(from);
        return event;
    }

    /** The leader events {@code source} published and no test has taken yet. */
    BlockingQueue<AbstractLeaderEvent> events(Object source) {
        return events.computeIfAbsent(source, s -> new LinkedBlockingQueue<>());
    }

    /** A client of its own, as another process would have; {@code lease} null for the default. */
    LockClient client(Duration lease) {
        LockConfig.Builder builder = LockConfig.builder().redisUri(REDIS.server().uri());
        if (lease != null) {
            builder.defaultLease(lease);
        }
        LockClient client = LockClient.create(builder.build());
        clients.add(client);
        return client;
    }

    /** A role (an election's name) no other test uses. */
    static String role() {
        return "role-" + ROLES.incrementAndGet();
    }
}
