package dev.warden.internal.lease;

import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The moves that {@link Phase} and {@link Standing} allow, and the ones they refuse as bugs. */
class StatesTest {
    @Test
    void aWaiterStandsForwardOnlyAndNeverRejoinsAfterLeaving() {
        assertThat(Standing.NEW.to(Standing.TRIED, "a")).isEqualTo(Standing.TRIED);
        assertThat(Standing.TRIED.to(Standing.JOINED, "a")).isEqualTo(Standing.JOINED);
        assertThat(Standing.JOINED.to(Standing.LEFT, "a")).isEqualTo(Standing.LEFT);
        assertThat(Standing.NEW.to(Standing.LEFT, "a")).isEqualTo(Standing.LEFT);
        assertThat(Standing.LEFT.to(Standing.LEFT, "a")).isEqualTo(Standing.LEFT);
        assertThatThrownBy(() -> Standing.LEFT.to(Standing.JOINED, "acquisition of lock 'x'"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("acquisition of lock 'x' moved from LEFT to JOINED");
        assertThatThrownBy(() -> Standing.LEFT.to(Standing.TRIED, "a")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Standing.JOINED.to(Standing.TRIED, "a")).isInstanceOf(IllegalStateException.class);
        // A waiter listens only after a try: its join follows a reply.
        assertThatThrownBy(() -> Standing.NEW.to(Standing.JOINED, "a")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void onlyAStandingThatTriedAndHasNotLeftMayBeRegistered() {
        assertThat(Standing.NEW.tried()).isFalse();
        assertThat(Standing.TRIED.tried()).isTrue();
        assertThat(Standing.JOINED.tried()).isTrue();
        assertThat(Standing.LEFT.tried()).isFalse();
    }

    @Test
    void aGrantedAcquisitionMovesNoMore() {
        for (Phase next : Phase.values()) {
            assertThat(Phase.GRANTED.leadsTo(next)).isFalse();
        }
        assertThat(Phase.IDLE.to(Phase.TRYING, "a")).isEqualTo(Phase.TRYING);
        assertThat(Phase.TRYING.to(Phase.GRANTED, "a")).isEqualTo(Phase.GRANTED);
        assertThatThrownBy(() -> Phase.HELD_BACK.to(Phase.GRANTED, "a")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Phase.GRANTED.to(Phase.TRYING, "acquire of multi-lock 'm'"))
                .hasMessage("acquire of multi-lock 'm' moved from GRANTED to TRYING");
    }
}
