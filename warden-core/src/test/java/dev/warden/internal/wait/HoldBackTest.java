package dev.warden.internal.wait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Fair mode's local handover, as a value: every move the notifier makes. */
class HoldBackTest {

    @Test
    void nothingHoldsBackUntilALocalWaiterIsGranted() {
        assertThat(HoldBack.NONE.holdsBack()).isFalse();
        HoldBack held = HoldBack.NONE.granted("a");
        assertThat(held.holdsBack()).isTrue();
        assertThat(held.heldBy("a")).isTrue();
        assertThat(held.heldBy("b")).isFalse();
    }

    @Test
    void aReleaseOnItsWayStillHoldsBackUntilItAnswers() {
        HoldBack releasing = HoldBack.NONE.granted("a").releasing("a");
        assertThat(releasing.holder()).isNull();
        assertThat(releasing.releasing()).isEqualTo("a");
        assertThat(releasing.holdsBack()).isTrue();
        assertThat(releasing.ended("a")).isEqualTo(HoldBack.NONE);
    }

    @Test
    void aNewHolderGrantedWhileTheOldReleaseIsOnItsWayKeepsBoth() {
        HoldBack both = HoldBack.NONE.granted("a").releasing("a").granted("b");
        assertThat(both).isEqualTo(new HoldBack("b", "a"));
        // The old release answers: the new holder still holds back later waiters.
        HoldBack after = both.ended("a");
        assertThat(after).isEqualTo(new HoldBack("b", null));
        assertThat(after.holdsBack()).isTrue();
        // The new holder's lease ends without a release (lost, say): nothing holds back.
        assertThat(after.ended("b")).isEqualTo(HoldBack.NONE);
    }

    @Test
    void theEndOfAnotherLeaseChangesNothing() {
        HoldBack held = HoldBack.NONE.granted("a");
        assertThat(held.ended("x")).isSameAs(held);
        assertThat(HoldBack.NONE.ended("x")).isSameAs(HoldBack.NONE);
    }

    @Test
    void onlyTheHolderCanBeginItsRelease() {
        HoldBack held = HoldBack.NONE.granted("a");
        assertThatThrownBy(() -> held.releasing("b")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("b releases, but a holds");
    }
}
