package dev.warden.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.redisserver.RedisServer;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link HandshakeProbe}: which failed connects it asks about, and what a real server answers it. */
class HandshakeProbeTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static RedisServer server;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        server.call("ACL", "SETUSER", "prober", "reset", "on", ">right");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void onlyAHandshakeCutShortWithoutAnAnswerIsProbed() {
        assertThat(HandshakeProbe.cut(new RedisConnectionException("Unable to connect to 127.0.0.1:1",
                new RedisConnectionException("Connection closed prematurely")))).isTrue();
        assertThat(HandshakeProbe.cut(new RedisConnectionException("Unable to connect to 127.0.0.1:1",
                new IllegalStateException("RedisHandshakeHandler not registered")))).isTrue();
        assertThat(HandshakeProbe.cut(new RedisConnectionException("Unable to connect to 127.0.0.1:1",
                new RedisCommandExecutionException("WRONGPASS invalid username-password pair")))).isFalse();
        assertThat(HandshakeProbe.cut(new RedisConnectionException("Unable to connect to 127.0.0.1:1",
                new java.net.ConnectException("Connection refused")))).isFalse();
        // Lettuce reports each sentinel's failure as suppressed by "Cannot connect to a Redis Sentinel".
        RedisConnectionException sentinels = new RedisConnectionException("Cannot connect to a Redis Sentinel");
        sentinels.addSuppressed(new RedisConnectionException("Unable to connect to 127.0.0.1:1",
                new RedisConnectionException("Connection closed prematurely")));
        assertThat(HandshakeProbe.cut(sentinels)).isTrue();
        sentinels.addSuppressed(new RedisConnectionException("Unable to connect to 127.0.0.1:2",
                new RedisCommandExecutionException("NOAUTH Authentication required.")));
        assertThat(HandshakeProbe.cut(sentinels)).isFalse();
    }

    @Test
    void withoutCredentialsAServerThatWantsThemAnswersNoauth() {
        RedisServer guarded = RedisServer.start();
        try {
            guarded.call("CONFIG", "SET", "requirepass", "secret");
            assertThat(HandshakeProbe.refusal(RedisURI.create(guarded.host(), guarded.port()), TIMEOUT))
                    .hasValueSatisfying(answer -> assertThat(answer).startsWith("NOAUTH"));
        } finally {
            guarded.close();
        }
    }

    @Test
    void aWrongPasswordIsAnsweredWithTheServersRefusal() {
        assertThat(HandshakeProbe.refusal(uri("prober", "wrong"), TIMEOUT)).hasValueSatisfying(
                answer -> assertThat(answer).startsWith("WRONGPASS"));
        // The default user has no password here: Redis says so, which is what a user needs to read too.
        assertThat(HandshakeProbe.refusal(uri(null, "wrong"), TIMEOUT)).hasValueSatisfying(
                answer -> assertThat(answer).startsWith("ERR AUTH <password> called without any password"));
    }

    @Test
    void rightCredentialsNoneOrTlsGiveNothing() {
        assertThat(HandshakeProbe.refusal(uri("prober", "right"), TIMEOUT)).isEmpty();
        assertThat(HandshakeProbe.refusal(RedisURI.create(server.host(), server.port()), TIMEOUT)).isEmpty();
        RedisURI tls = uri("prober", "wrong");
        tls.setSsl(true);
        assertThat(HandshakeProbe.refusal(tls, TIMEOUT)).isEmpty();
    }

    @Test
    void anUnreachableServerGivesNothing() {
        RedisURI closed = RedisURI.builder().withHost(server.host()).withPort(1)
                .withAuthentication("prober", "wrong".toCharArray()).build();
        assertThat(HandshakeProbe.refusal(closed, TIMEOUT)).isEmpty();
    }

    private static RedisURI uri(String user, String password) {
        RedisURI.Builder builder = RedisURI.builder().withHost(server.host()).withPort(server.port());
        return (user == null ? builder.withPassword(password.toCharArray())
                : builder.withAuthentication(user, password.toCharArray())).build();
    }
}
