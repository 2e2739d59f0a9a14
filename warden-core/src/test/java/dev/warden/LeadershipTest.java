package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Leadership on the lock: one leader among candidates of several clients, epochs that rise with every term, terms
 * ended loudly (lost lease, forced release, step-down, close, a server that lost its data), and a new leader elected
 * by the release itself, not by polling.
 */
@Timeout(120)
class LeadershipTest extends RedisTestSupport {
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** What a listener heard, in order, with the thread that told it. */
    private record Heard(String what, Term term, Leadership.Revocation why, String thread) {
    }

    private static final class Recorder implements LeadershipListener {
        final BlockingQueue<Heard> heard = new LinkedBlockingQueue<>();
        final List<Heard> all = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void elected(Term term) {
            add(new Heard("elected", term, null, Thread.currentThread().getName()));
        }

        @Override
        public void revoked(Term term, Leadership.Revocation why) {
            add(new Heard("revoked", term, why, Thread.currentThread().getName()));
        }

        private void add(Heard event) {
            all.add(event);
            heard.add(event);
        }

        Heard next() throws InterruptedException {
            Heard event = heard.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(event).as("a leadership call within %s", WAIT).isNotNull();
            return event;
        }
    }

    @Test
    void oneOfSeveralCandidatesLeadsAndTheOthersWait() throws Exception {
        String name = uniqueName();
        List<Leadership> candidates = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            candidates.add(client().leadership(name));
        }
        Leadership leader = firstLeader(candidates);
        Term term = leader.term().orElseThrow();
        assertThat(term.election()).isEqualTo(name);
        assertThat(term.epoch()).isPositive();
        assertThat(candidates.stream().filter(Leadership::isLeader)).containsExactly(leader);
        // The others wait in the lock's queue; none of them asks Redis while the leader holds.
        awaitQueued(name, 2);
        long calls = scriptCalls();
        for (Leadership candidate : candidates) {
            if (candidate != leader) {
                assertThat(candidate.awaitLeadership(Duration.ofMillis(300))).isEmpty();
            }
        }
        assertThat(scriptCalls() - calls).as("scripts run while a leader holds").isZero();
    }

    @Test
    void steppingDownElectsTheNextAtOnceWithAHigherEpoch() throws Exception {
        String name = uniqueName();
        Recorder first = new Recorder();
        Recorder second = new Recorder();
        Leadership a = client().leadership(name, first);
        Term termA = first.next().term();
        Leadership b = client().leadership(name, second);
        awaitQueued(name, 1);
        assertThat(b.awaitLeadership(Duration.ofMillis(200))).isEmpty();

        long before = System.nanoTime();
        assertThat(a.stepDown()).isTrue();
        Heard elected = second.next();
        long handoverMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
        assertThat(elected.what()).isEqualTo("elected");
        assertThat(elected.term().epoch()).isGreaterThan(termA.epoch());
        assertThat(handoverMillis).as("step-down to the next leader's elected call").isLessThan(2_000);
        assertThat(first.next()).extracting(Heard::what, Heard::term, Heard::why)
                .containsExactly("revoked", termA, Leadership.Revocation.STEPPED_DOWN);
        assertThat(a.isLeader()).isFalse();
        assertThat(a.stepDown()).as("not leading any more").isFalse();

        // The one that stepped down joined again behind: once it waits in the queue, it leads after the other steps
        // down, higher again. (A candidate that has only just joined is not queued yet, and may lose to a leader
        // that steps down and joins again at once.)
        awaitQueued(name, 1);
        assertThat(b.stepDown()).isTrue();
        Term again = a.awaitLeadership(WAIT).orElseThrow();
        assertThat(again.epoch()).isGreaterThan(elected.term().epoch());
    }

    @Test
    void aForcedReleaseRevokesTheLeaderLoudlyAndElectsAnother() throws Exception {
        String name = uniqueName();
        Recorder heard = new Recorder();
        // 3 s: the forced release is found by the next renewal, within 1 s; a shorter lease lost to a loaded
        // machine's late renewal would end the next term too, before the test reads it.
        LockClient leaderClient = client(b -> b.defaultLease(Duration.ofSeconds(3)));
        Leadership a = leaderClient.leadership(name, heard);
        Term term = heard.next().term();
        Leadership b = client().leadership(name);

        client().lock(name).forceRelease();

        Heard revoked = heard.next();
        assertThat(revoked.what()).isEqualTo("revoked");
        assertThat(revoked.term()).isEqualTo(term);
        assertThat(revoked.why()).isEqualTo(Leadership.Revocation.LOST);
        assertThat(a.isLeader()).isFalse();
        Optional<Term> next = firstLeader(List.of(a, b)).term();
        assertThat(next.orElseThrow().epoch()).isGreaterThan(term.epoch());
    }

    @Test
    void aServerThatLostItsDataRevokesTheLeaderAndSomeoneLeadsAfter() throws Exception {
        String name = uniqueName();
        Recorder heard = new Recorder();
        Leadership a = client(b -> b.defaultLease(Duration.ofSeconds(3))).leadership(name, heard);
        Term term = heard.next().term();
        server.call("FLUSHALL");
        Heard revoked = heard.next();
        assertThat(revoked.why()).isEqualTo(Leadership.Revocation.LOST);
        assertThat(revoked.term()).isEqualTo(term);
        // It joined again, and nobody else competes: it leads again, in a new term.
        Heard elected = heard.next();
        assertThat(elected.what()).isEqualTo("elected");
        assertThat(elected.term()).isNotEqualTo(term);
        assertThat(a.isLeader()).isTrue();
    }

    @Test
    void aLeaderCutOffFromRedisIsRevokedByItsOwnDeadline() throws Exception {
        String name = uniqueName();
        Recorder heard = new Recorder();
        Leadership a = client(b -> b.defaultLease(Duration.ofSeconds(1)).commandTimeout(Duration.ofMillis(300)))
                .leadership(name, heard);
        Term term = heard.next().term();
        server.pause();
        long paused = System.nanoTime();
        try {
            Heard revoked = heard.next();
            assertThat(revoked.why()).isEqualTo(Leadership.Revocation.LOST);
            assertThat(revoked.term()).isEqualTo(term);
            assertThat(a.isLeader()).isFalse();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - paused))
                    .as("revoked by the lease's own deadline, not by Redis").isLessThan(2_000);
        } finally {
            server.resume();
        }
        assertThat(a.awaitLeadership(WAIT)).isPresent();
    }

    @Test
    void closingTheCandidateOrItsClientEndsTheTermAndElectsTheNext() throws Exception {
        String name = uniqueName();
        Recorder first = new Recorder();
        LockClient firstClient = client();
        Leadership a = firstClient.leadership(name, first);
        Term termA = first.next().term();
        Recorder second = new Recorder();
        LockClient secondClient = client();
        Leadership b = secondClient.leadership(name, second);

        a.close();
        a.close();
        assertThat(first.next()).extracting(Heard::what, Heard::why)
                .containsExactly("revoked", Leadership.Revocation.CLOSED);
        Term termB = second.next().term();
        assertThat(termB.epoch()).isGreaterThan(termA.epoch());
        assertThatThrownBy(() -> a.awaitLeadership(Duration.ZERO)).isInstanceOf(IllegalLockStateException.class);

        // Closing the client closes its candidates: the term ends, nothing of it stays held or queued.
        Recorder third = new Recorder();
        Leadership c = client().leadership(name, third);
        CompletableFuture<Term> waiting = c.leadershipAsync();
        secondClient.close();
        assertThat(second.next()).extracting(Heard::what, Heard::why)
                .containsExactly("revoked", Leadership.Revocation.CLOSED);
        assertThat(b.isLeader()).isFalse();
        assertThat(waiting.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).epoch()).isGreaterThan(termB.epoch());
        assertThatThrownBy(() -> secondClient.leadership(name)).isInstanceOf(IllegalStateException.class);
        c.close();
        assertThat(client().lock(name).inspect().held()).isFalse();
        assertThat(client().lock(name).inspect().waiters()).isZero();
    }

    @Test
    void callsComeInOrderOffTheIoThreadsAndAThrowingListenerIsNotFatal() throws Exception {
        String name = uniqueName();
        Recorder heard = new Recorder();
        LeadershipListener throwing = new LeadershipListener() {
            @Override
            public void elected(Term term) {
                heard.elected(term);
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void revoked(Term term, Leadership.Revocation why) {
                heard.revoked(term, why);
                throw new IllegalStateException("listener bug");
            }
        };
        Leadership a = client().leadership(name, throwing);
        for (int i = 0; i < 5; i++) {
            assertThat(a.awaitLeadership(WAIT)).isPresent();
            assertThat(a.stepDown()).isTrue();
        }
        assertThat(a.awaitLeadership(WAIT)).isPresent();
        a.close();
        assertThat(eventually(WAIT, () -> heard.all.size() == 12)).as("heard: %s", heard.all).isTrue();
        for (int i = 0; i < heard.all.size(); i++) {
            Heard event = heard.all.get(i);
            assertThat(event.what()).isEqualTo(i % 2 == 0 ? "elected" : "revoked");
            if (i % 2 == 1) {
                assertThat(event.term()).isEqualTo(heard.all.get(i - 1).term());
            }
            assertThat(event.thread()).doesNotContain("lettuce").doesNotContain("nioEventLoop");
        }
        List<Long> epochs = heard.all.stream().filter(e -> e.what().equals("elected")).map(e -> e.term().epoch())
                .toList();
        assertThat(epochs).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void anAsyncWaitThatIsCancelledLeavesTheCandidateInTheElection() throws Exception {
        String name = uniqueName();
        Leadership a = client().leadership(name);
        assertThat(a.awaitLeadership(WAIT)).isPresent();
        Leadership b = client().leadership(name);
        CompletableFuture<Term> cancelled = b.leadershipAsync();
        CompletableFuture<Term> kept = b.leadershipAsync();
        cancelled.cancel(false);
        awaitQueued(name, 1);
        a.stepDown();
        assertThat(kept.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(b.term().orElseThrow());
        assertThatThrownBy(() -> b.awaitLeadership(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    }

    @Test
    void theClientsLockListenerHearsEachTermInOrderOnItsEventsThread() throws Exception {
        String name = uniqueName();
        BlockingQueue<String> events = new LinkedBlockingQueue<>();
        List<String> threads = Collections.synchronizedList(new ArrayList<>());
        LockListener listener = new LockListener() {
            @Override
            public void onLost(Loss event) {
                events.add("lost " + event.cause());
            }

            @Override
            public void onElected(Term term) {
                threads.add(Thread.currentThread().getName());
                events.add("elected " + term.election() + " " + term.epoch());
            }

            @Override
            public void onRevoked(Term term, Leadership.Revocation why) {
                threads.add(Thread.currentThread().getName());
                events.add("revoked " + term.election() + " " + term.epoch() + " " + why);
            }
        };
        // A lease renewed every second: the forced release is found within about that.
        LockClient client = client(b -> b.defaultLease(Duration.ofSeconds(3)).listener(listener));
        Leadership a = client.leadership(name);
        Term first = a.awaitLeadership(WAIT).orElseThrow();
        assertThat(a.stepDown()).isTrue();
        // Nobody else competes: it joins again and leads again, in a new term.
        Term second = awaitNewTerm(a, first);
        client().lock(name).forceRelease();
        Term third = awaitNewTerm(a, second);
        a.close();

        List<String> heard = new ArrayList<>();
        while (heard.size() < 7) {
            String event = events.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(event).as("the next event after %s", heard).isNotNull();
            heard.add(event);
        }
        assertThat(heard).containsExactly(
                "elected " + name + " " + first.epoch(),
                "revoked " + name + " " + first.epoch() + " STEPPED_DOWN",
                "elected " + name + " " + second.epoch(),
                "lost NOT_IN_REDIS",
                "revoked " + name + " " + second.epoch() + " LOST",
                "elected " + name + " " + third.epoch(),
                "revoked " + name + " " + third.epoch() + " CLOSED");
        assertThat(first.epoch()).isLessThan(second.epoch());
        assertThat(second.epoch()).isLessThan(third.epoch());
        assertThat(threads).hasSize(6).allMatch(thread -> thread.endsWith("-events"), "on the client's events thread");
    }

    /** Waits until {@code candidate} leads in a term other than {@code previous}. */
    private static Term awaitNewTerm(Leadership candidate, Term previous) throws InterruptedException {
        assertThat(eventually(WAIT, () -> candidate.term().filter(term -> !term.equals(previous)).isPresent()))
                .as("a term after %s", previous).isTrue();
        return candidate.term().orElseThrow();
    }

    private void awaitQueued(String name, int candidates) throws InterruptedException {
        DistributedLock lock = client().lock(name);
        assertThat(eventually(WAIT, () -> lock.inspect().waiters() == candidates))
                .as("%d candidates queued", candidates).isTrue();
    }

    private static Leadership firstLeader(List<Leadership> candidates) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        List<CompletableFuture<Term>> futures = candidates.stream().map(Leadership::leadershipAsync).toList();
        try {
            CompletableFuture.anyOf(futures.toArray(CompletableFuture[]::new))
                    .get(end - System.nanoTime(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no leader within " + WAIT, e);
        }
        for (int i = 0; i < candidates.size(); i++) {
            if (futures.get(i).isDone() && candidates.get(i).isLeader()) {
                return candidates.get(i);
            }
        }
        throw new AssertionError("the elected candidate no longer leads");
    }
}
