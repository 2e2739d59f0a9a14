package dev.warden.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * L1, leadership handover (issue #43), for Warden's {@code LockClient.leadership}, Spring Integration's
 * {@code LockRegistryLeaderInitiator} over a {@code RedisLockRegistry}, and Curator's {@code LeaderLatch}
 * ({@link LeaderCandidate}), each candidate in a client of its own:
 * <ul>
 *   <li><b>step-down</b>: of two candidates in this JVM, the leader gives up leadership on purpose
 *   ({@link LeaderCandidate#yieldLeadership()}); the time from that call to the other's elected callback;</li>
 *   <li><b>kill</b>: the leader runs in a JVM of its own ({@link LeaderChild}) and is killed with SIGKILL; the time
 *   from the kill to the elected callback of the follower in this JVM, which the lease (lock expiry, session
 *   timeout) bounds;</li>
 *   <li><b>idle</b>: the requests and commands per second Redis sees while the forked leader holds and the follower
 *   waits ({@link IdleCost}), over one window in the first kill's run, after the settle; n/a for Curator, which
 *   uses no Redis.</li>
 * </ul>
 * Between two step-downs (a random pause of one to two {@link Settings#settle}s, so that the step-downs fall at random
 * points of a polling follower's cycle), and between the follower's joining and the kill (one settle), the bench
 * pauses so that the candidate that joined last is waiting in the election, not still joining.
 */
final class Handover {
    /** The description in the table. */
    static final String DESCRIPTION = "leadership handover: step-down and leader death (SIGKILL), idle cost";

    private Handover() {
    }

    /**
     * What one L1 run does.
     *
     * @param stepDowns how many step-downs are timed
     * @param kills     how many leader deaths are timed
     * @param lease     the lease of Warden, the lock expiry of Spring's registry, the session timeout Curator asks
     * @param idle      the window over which the idle cost is counted
     * @param settle    the pause before each step-down and before each kill
     */
    record Settings(int stepDowns, int kills, Duration lease, Duration idle, Duration settle) {
        /** @return the settings of the options {@code l1-stepdowns} (20), {@code l1-kills} (5), {@code l1-lease}
         *          seconds (10) and {@code l1-idle} seconds (6, two renewal periods of Warden's 10 s lease); 300 ms
         *          of settling */
        static Settings of(Map<String, String> options) {
            return new Settings(Integer.parseInt(options.getOrDefault("l1-stepdowns", "20")),
                    Integer.parseInt(options.getOrDefault("l1-kills", "5")),
                    Duration.ofMillis((long) (Double.parseDouble(options.getOrDefault("l1-lease", "10")) * 1000)),
                    Duration.ofMillis((long) (Double.parseDouble(options.getOrDefault("l1-idle", "6")) * 1000)),
                    Duration.ofMillis(300));
        }
    }

    /**
     * Runs L1 for one library.
     *
     * @return its figures: the lease in force, the step-downs' and kills' count, median, p90 and max in ms, and the
     *         idle requests and commands per second
     */
    static Map<String, Double> run(String name, Contenders.Servers servers, Settings settings) throws Exception {
        StepDowns stepDowns = stepDowns(name, servers, settings);
        System.err.printf(Locale.ROOT, "L1 %s step-downs (ms): %s; won again by the yielder: %d%n", name,
                stepDowns.millis(), stepDowns.wonAgain());
        Kills kills = kills(name, servers, settings);
        System.err.printf(Locale.ROOT, "L1 %s kills (ms): %s%n", name, kills.millis());
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("lease/TTL/session s", kills.lease().toMillis() / 1000.0);
        summarize(figures, "step-down", stepDowns.millis());
        figures.put("step-downs won again", (double) stepDowns.wonAgain());
        summarize(figures, "kill", kills.millis());
        figures.put("idle requests/s", kills.idle().requestsPerSecond());
        figures.put("idle commands/s", kills.idle().commandsPerSecond());
        return figures;
    }

    /**
     * What the step-downs measured.
     *
     * @param millis   each handover's time from the yield to the other's election
     * @param wonAgain the step-downs after which the yielder was elected again, not the other: Warden's candidate
     *                 joins again at once, and wins again if the other has not queued yet; not timed, and tried again
     */
    record StepDowns(List<Double> millis, int wonAgain) {
    }

    /**
     * Times {@code settings.stepDowns()} handovers between two candidates of this JVM, each time the other way. A
     * step-down that the yielder wins again is counted apart and tried again, at most {@code stepDowns} times in all.
     */
    static StepDowns stepDowns(String name, Contenders.Servers servers, Settings settings) throws Exception {
        String election = "l1-stepdown-" + System.nanoTime();
        List<Double> millis = new ArrayList<>();
        int wonAgain = 0;
        try (LeaderCandidate first = LeaderCandidate.open(name, servers, election, settings.lease())) {
            await(first.election(), Duration.ofSeconds(30), name + ": the first candidate was not elected");
            try (LeaderCandidate second = LeaderCandidate.open(name, servers, election, settings.lease())) {
                LeaderCandidate leader = first;
                LeaderCandidate follower = second;
                // The second client's first join is cold (connections, scripts): give it longer to queue.
                Thread.sleep(settings.settle().multipliedBy(2).toMillis());
                while (millis.size() < settings.stepDowns()) {
                    // A pause of its own each time, so that no step-down falls at the same point of Spring's
                    // 100 ms polling: with a fixed 300 ms, its follower's poll came a few ms after each stop.
                    Thread.sleep(settings.settle().toMillis()
                            + ThreadLocalRandom.current().nextLong(settings.settle().toMillis()));
                    CompletableFuture<Long> next = follower.armNext();
                    CompletableFuture<Long> again = leader.armNext();
                    long yielded = System.nanoTime();
                    leader.yieldLeadership();
                    await(CompletableFuture.anyOf(next, again), settings.lease().plusSeconds(5),
                            name + ": nobody elected after step-down " + (millis.size() + wonAgain + 1));
                    if (!next.isDone()) {
                        if (++wonAgain > settings.stepDowns()) {
                            throw new IllegalStateException(name + ": the yielder won again " + wonAgain + " times");
                        }
                        continue;
                    }
                    millis.add((next.join() - yielded) / 1e6);
                    leader.rejoin();
                    LeaderCandidate former = leader;
                    leader = follower;
                    follower = former;
                }
            }
        }
        return new StepDowns(millis, wonAgain);
    }

    /**
     * What the kills measured.
     *
     * @param millis each kill's time to the follower's election
     * @param lease  the lease, expiry or session timeout the follower's client had
     * @param idle   the idle cost, counted in the first kill's run
     */
    record Kills(List<Double> millis, Duration lease, IdleCost idle) {
    }

    /**
     * Times {@code settings.kills()} leader deaths, each in an election of its own: a forked leader, a follower in
     * this JVM, the kill, the follower's election. The first also counts the idle cost. The next leader's JVM starts
     * as soon as one is killed, in its own election, so that its start overlaps the wait for the follower.
     */
    static Kills kills(String name, Contenders.Servers servers, Settings settings) throws Exception {
        List<Double> millis = new ArrayList<>();
        Duration lease = settings.lease();
        IdleCost idle = IdleCost.NONE;
        List<LeaderChild> children = new ArrayList<>();
        try {
            String election = "l1-kill-" + System.nanoTime();
            children.add(LeaderChild.launch(name, servers, election, settings.lease()));
            for (int i = 0; i < settings.kills(); i++) {
                LeaderChild child = children.get(i);
                child.awaitElected(Duration.ofSeconds(60));
                try (LeaderCandidate follower = LeaderCandidate.open(name, servers, election, settings.lease())) {
                    lease = follower.lease();
                    Thread.sleep(settings.settle().toMillis());
                    if (i == 0 && follower.onRedis()) {
                        // After the settle, so that the follower's joining is not counted as idle.
                        idle = IdleCost.measure(servers.redis(), settings.idle());
                    }
                    CompletableFuture<Long> elected = follower.election();
                    if (elected.isDone()) {
                        throw new IllegalStateException(name + ": the follower was elected while the leader lived");
                    }
                    long killed = System.nanoTime();
                    child.kill();
                    if (i + 1 < settings.kills()) {
                        election = "l1-kill-" + System.nanoTime();
                        children.add(LeaderChild.launch(name, servers, election, settings.lease()));
                    }
                    millis.add((await(elected, lease.multipliedBy(3).plusSeconds(10),
                            name + ": no follower elected after kill " + (i + 1)) - killed) / 1e6);
                }
            }
        } finally {
            children.forEach(LeaderChild::close);
        }
        return new Kills(millis, lease, idle);
    }

    /** Adds the count, median, p90 and max of {@code millis} under {@code what}. */
    static void summarize(Map<String, Double> figures, String what, List<Double> millis) {
        Spread spread = Spread.of(millis);
        figures.put(what + "s", (double) millis.size());
        figures.put(what + " median ms", spread.value());
        figures.put(what + " p90 ms", percentile(millis, 0.9));
        figures.put(what + " max ms", spread.max());
    }

    /** @return the nearest-rank percentile of {@code values}: the least value not below {@code fraction} of them */
    static double percentile(List<Double> values, double fraction) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        return sorted.get(Math.max(0, (int) Math.ceil(fraction * sorted.size()) - 1));
    }

    /** Waits for an election; its failure is rethrown, and a timeout fails with {@code message}. */
    private static <T> T await(CompletableFuture<T> election, Duration bound, String message) throws Exception {
        try {
            return election.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(message + " within " + bound, e);
        }
    }
}
