package dev.warden.internal.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A fan-out decides only once every server was sent its request, whatever answered first. */
class FanoutTest {
    @Test
    void aDecisionByTheFirstAnswersWaitsUntilTheLastRequestIsSent() {
        List<Integer> sent = new ArrayList<>();
        List<Integer> sentWhenTested = new ArrayList<>();
        CompletableFuture<String> last = new CompletableFuture<>();
        // Servers 0 and 1 answer at once (as a fast server's reply may come back while the loop still sends); the
        // rule holds on two answers. Decided before server 2 was sent its request, the caller's give-back to server 2
        // (which had not answered) went ahead of that request: a quorum waiter kept its grant there (2026-11-30).
        CompletableFuture<List<Fanout.Outcome<String>>> result = Fanout.fan(3, index -> {
            sent.add(index);
            return index < 2 ? CompletableFuture.completedFuture("granted") : last;
        }, (index, error) -> { }, outcomes -> {
            sentWhenTested.add(sent.size());
            return Fanout.count(outcomes, value -> true) >= 2;
        }, new CompletableFuture<>());
        assertThat(result).isCompleted();
        assertThat(sentWhenTested).as("requests sent each time the rule was tested").containsOnly(3);
        List<Fanout.Outcome<String>> outcomes = result.join();
        assertThat(outcomes.get(0).value()).isEqualTo("granted");
        assertThat(outcomes.get(2).pending()).isTrue();
        last.complete("late");
        assertThat(result.join().get(2).pending()).as("decided once").isTrue();
    }

    @Test
    void answersThatAllCameWhileSendingDecideOnceSent() {
        List<Integer> failedServers = new ArrayList<>();
        CompletableFuture<List<Fanout.Outcome<String>>> result = Fanout.fan(3, index -> index == 1
                ? CompletableFuture.failedFuture(new IllegalStateException("refused"))
                : CompletableFuture.completedFuture("held"), (index, error) -> failedServers.add(index),
                outcomes -> false, new CompletableFuture<>());
        assertThat(result).isCompleted();
        assertThat(result.join()).extracting(Fanout.Outcome::failed).containsExactly(false, true, false);
        assertThat(failedServers).containsExactly(1);
    }

    @Test
    void aRecheckTestsTheRuleAgain() {
        CompletableFuture<Void> recheck = new CompletableFuture<>();
        boolean[] heard = {false};
        CompletableFuture<List<Fanout.Outcome<String>>> result = Fanout.fan(2,
                index -> index == 0 ? CompletableFuture.completedFuture("granted") : new CompletableFuture<>(),
                (index, error) -> { }, outcomes -> heard[0] && Fanout.count(outcomes, value -> true) >= 1, recheck);
        assertThat(result).isNotDone();
        heard[0] = true;
        recheck.complete(null);
        assertThat(result).isCompleted();
    }
}
