package dev.warden.internal.script;

import dev.warden.Identity;
import dev.warden.LockInfo;
import dev.warden.internal.base.UnexpectedReplyException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each script's reply decoded once into its typed value, and a reply of another shape refused loudly. */
class RepliesTest {

    @Test
    void acquireRepliesAreAFenceWhenAcquiredAndTheHoldersTtlWhenHeld() {
        assertThat(Replies.acquire(0L, 30_000)).isEqualTo(new Replies.Acquired(0, 30_000));
        assertThat(Replies.acquire(1_732_000_000_000_001L, 500))
                .isEqualTo(new Replies.Acquired(1_732_000_000_000_001L, 500));
        assertThat(Replies.acquire(-1L - 2_500, 500)).isEqualTo(new Replies.Held(2_500));
        assertThat(Replies.acquire(-1L, 500)).isEqualTo(new Replies.Held(0));
    }

    @Test
    void queuedAcquireRepliesAreAListWhenAcquiredAndOneIntegerWhenNot() {
        assertThat(Replies.acquireQueued(List.of(1L, 42L, 4_000L))).isEqualTo(new Replies.Acquired(42, 4_000));
        assertThat(Replies.acquireQueued(List.of(-1L - 700))).isEqualTo(new Replies.Held(700));
        // Free, but older waiters come first: no holder TTL to wait for.
        assertThat(Replies.acquireQueued(List.of(0L))).isEqualTo(new Replies.Held(-1));
    }

    @Test
    void queuedReleaseRepliesTellTheOutcomeAndAGrantToAWaiterOfThisClient() {
        assertThat(Replies.releaseQueued(List.of(0L))).isEqualTo(Replies.Outcome.NOT_HELD);
        assertThat(Replies.releaseQueued(List.of(1L))).isEqualTo(Replies.Outcome.RELEASED);
        assertThat(Replies.releaseQueued(List.of(3L))).isEqualTo(Replies.Outcome.GRANTED_ELSEWHERE);
        assertThat(Replies.releaseQueued(List.of(3L, 9L, "tok", 2L, List.of("a", "b"))))
                .isEqualTo(new Replies.GrantedHere(9, "tok", 2, List.of("a", "b")));
        assertThat(Replies.Outcome.NOT_HELD.held()).isFalse();
        assertThat(Replies.Outcome.GRANTED_ELSEWHERE.held()).isTrue();
    }

    @Test
    void theOtherScriptsDecodeToTheirValues() {
        assertThat(Replies.flag("release", 1L)).isTrue();
        assertThat(Replies.flag("release", 0L)).isFalse();
        assertThat(Replies.fence(0L)).isEqualTo(OptionalLong.empty());
        assertThat(Replies.fence(17L)).isEqualTo(OptionalLong.of(17));
        assertThat(Replies.consumed(List.of(1L, List.of("x")))).containsExactly("x");
        assertThat(Replies.consumed(List.of(0L, List.of()))).isNull();
        assertThat(Replies.renewed(List.of(1L, 0L, 1L), 3)).containsExactly(true, false, true);
        assertThat(Replies.state(List.of(1L, 2_000L, 5L, 3L, "tok", 9L, -1L, List.of("AbCdEf.z", "unmarked"))))
                .isEqualTo(new Replies.State(true, 2_000, 5, 3, "tok", 9, -1,
                        List.of(new Tokens.Origin("AbCdEf", 35))));
        assertThat(Replies.forceReleased(0L)).isEqualTo(OptionalLong.empty());
        assertThat(Replies.forceReleased(77L)).isEqualTo(OptionalLong.of(77));
    }

    @Test
    void aStateTellsTheHoldersStartTheHoldTimeByTheFenceAndTheLongestWait() {
        long now = 1_800_000_000_000_000L;
        Replies.State fenced = new Replies.State(true, 5_000, now - 12_300_000, 2,
                "abcdefghijklmnopqrstuv.AbCdEf.9", now, now - 4_000_000, List.of(new Tokens.Origin("XyZ123", 1)));
        assertThat(fenced.holder()).contains("abcdefgh");
        assertThat(fenced.heldFor()).contains(Duration.ofMillis(12_300));
        assertThat(fenced.longestWait()).contains(Duration.ofSeconds(4));
        Identity holder = new Identity("AbCdEf", 9, Optional.of("orders"), Optional.of("host-a"), OptionalLong.of(7),
                Optional.of("main"));
        Identity waiter = new Identity("XyZ123", 1, Optional.empty(), Optional.empty(), OptionalLong.empty(),
                Optional.empty());
        assertThat(fenced.origins()).containsExactlyInAnyOrder(new Tokens.Origin("AbCdEf", 9), new Tokens.Origin("XyZ123", 1));
        assertThat(fenced.info("n", Map.of(new Tokens.Origin("AbCdEf", 9), holder, new Tokens.Origin("XyZ123", 1),
                waiter))).isEqualTo(new LockInfo("n", true, Duration.ofSeconds(5), now - 12_300_000, 2,
                Optional.of("abcdefgh"), Optional.of(Duration.ofMillis(12_300)), Optional.of(Duration.ofSeconds(4)),
                Optional.of(holder), List.of(waiter)));
        // No fence yet, a fence ahead of the server's clock (a quorum's agreed fence from a faster clock), or one
        // that is no time: no hold time. A short token is shown whole.
        assertThat(new Replies.State(true, 5_000, 0, 0, "abc", now, -1, List.of()).heldFor()).isEmpty();
        assertThat(new Replies.State(true, 5_000, now + 1, 0, "abc", now, -1, List.of()).heldFor()).isEmpty();
        assertThat(new Replies.State(true, 5_000, 42, 0, "abc", now, -1, List.of()).heldFor()).isEmpty();
        assertThat(new Replies.State(true, 5_000, 0, 0, "abc", now, -1, List.of()).holder()).contains("abc");
        Replies.State free = new Replies.State(false, 0, now - 1, 0, "", now, -1, List.of());
        assertThat(free.holder()).isEmpty();
        assertThat(free.heldFor()).isEmpty();
        assertThat(free.longestWait()).isEmpty();
    }

    @Test
    void aGrantMessageIsTokenFenceAndArmAndAWakeUpIsNoGrant() {
        assertThat(Replies.grant("b03h1A:1732000000000001:7")).isEqualTo(new Replies.Grant("b03h1A",
                1_732_000_000_000_001L, 7));
        assertThat(Replies.grant("b03h1A:0:0")).isEqualTo(new Replies.Grant("b03h1A", 0, 0));
        assertThat(Replies.grant("clientIdWithoutColon")).isNull();
        assertThatThrownBy(() -> Replies.grant("tok:12")).isInstanceOf(UnexpectedReplyException.class)
                .hasMessageContaining("tok:12");
        assertThatThrownBy(() -> Replies.grant("tok:x:1")).isInstanceOf(UnexpectedReplyException.class);
    }

    @Test
    void aReplyOfAnotherShapeFailsWithALockExceptionNamingTheScript() {
        assertThatThrownBy(() -> Replies.acquireQueued(List.of(1L, 42L))).isInstanceOf(UnexpectedReplyException.class)
                .hasMessageContaining("acquire-queued.lua");
        assertThatThrownBy(() -> Replies.acquireQueued(List.of(5L))).isInstanceOf(UnexpectedReplyException.class);
        assertThatThrownBy(() -> Replies.releaseQueued(List.of(2L))).isInstanceOf(UnexpectedReplyException.class)
                .hasMessageContaining("release-queued.lua");
        assertThatThrownBy(() -> Replies.releaseQueued(List.of(3L, 9L, 1L, 2L, List.of())))
                .isInstanceOf(UnexpectedReplyException.class);
        assertThatThrownBy(() -> Replies.flag("handed", 2L)).isInstanceOf(UnexpectedReplyException.class);
        assertThatThrownBy(() -> Replies.acquire(null, 1)).isInstanceOf(UnexpectedReplyException.class);
        assertThatThrownBy(() -> Replies.renewed(List.of(1L), 2)).isInstanceOf(UnexpectedReplyException.class)
                .hasMessageContaining("renew.lua");
        assertThatThrownBy(() -> Replies.state(List.of(1L, "2", 3L, 4L, "t", 5L, 6L)))
                .isInstanceOf(UnexpectedReplyException.class);
        assertThatThrownBy(() -> Replies.state(List.of(1L, 2L, 3L, 4L)))
                .isInstanceOf(UnexpectedReplyException.class).hasMessageContaining("inspect.lua");
        // Held without a holder, or free with one, is no state inspect.lua answers.
        assertThatThrownBy(() -> Replies.state(List.of(1L, 2L, 3L, 4L, "", 5L, -1L)))
                .isInstanceOf(UnexpectedReplyException.class);
        assertThatThrownBy(() -> Replies.state(List.of(0L, 0L, 3L, 4L, "t", 5L, -1L)))
                .isInstanceOf(UnexpectedReplyException.class);
        assertThatThrownBy(() -> Replies.forceReleased(-1L)).isInstanceOf(UnexpectedReplyException.class);
    }
}
