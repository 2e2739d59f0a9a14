package dev.warden.internal.wait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Fair mode's local handover, as a value: every move the notifier makes. */
class FairHandoverTest {

    @Test
    void nothingHoldsBackUntilALocalWaiterIsGranted() {
        assertThat(FairHandover.NONE.holdsBack()).isFalse();
        FairHandover held = FairHandover.NONE.granted("a");
        assertThat(held.holdsBack()).isTrue();
        assertThat(held.heldBy("a")).isTrue();
        assertThat(held.heldBy("b")).isFalse();
    }

    @Test
    void aReleaseOnItsWayStillHoldsBackUntilItAnswers() {
        FairHandover releasing = FairHandover.NONE.granted("a").releasing("a");
        assertThat(releasing.holder()).isNull();
        assertThat(releasing.releasing()).isEqualTo("a");
        assertThat(releasing.holdsBack()).isTrue();
        assertThat(releasing.ended("a")).isEqualTo(FairHandover.NONE);
    }

    @Test
    void aNewHolderGrantedWhileTheOldReleaseIsOnItsWayKeepsBoth() {
        FairHandover both = FairHandover.NONE.granted("a").releasing("a").granted("b");
        assertThat(both).isEqualTo(new FairHandover("b", "a"));
        // The old release answers: the new holder still holds back later waiters.
        FairHandover after = both.ended("a");
        assertThat(after).isEqualTo(new FairHandover("b", null));
        assertThat(after.holdsBack()).isTrue();
        // The new holder's lease ends without a release (lost, say): nothing holds back.
        assertThat(after.ended("b")).isEqualTo(FairHandover.NONE);
    }

    @Test
    void theEndOfAnotherLeaseChangesNothing() {
        FairHandover held = FairHandover.NONE.granted("a");
        assertThat(held.ended("x")).isSameAs(held);
        assertThat(FairHandover.NONE.ended("x")).isSameAs(FairHandover.NONE);
    }

    @Test
    void onlyTheHolderCanBeginItsRelease() {
        FairHandover held = FairHandover.NONE.granted("a");
        assertThatThrownBy(() -> held.releasing("b")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("b releases, but a holds");
    }
}
