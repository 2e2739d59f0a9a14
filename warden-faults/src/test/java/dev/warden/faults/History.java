package dev.warden.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The merged history of a run, parsed from the workers' files. Times are System.nanoTime of one machine. */
final class History {
    /**
     * One acquisition and what its holder did with it. {@code validBeforeRelease} is the end of the lease's local
     * validity as its holder saw it just before the release, or, for a hold the run stretched ({@link FaultWorker})
     * and whose lease showed none by then, the last end it showed during the hold; -1 if none.
     */
    record Acquisition(String op, String name, long fence, long requested, long acquired, long write1Start,
                       long write1End, boolean write1Accepted, long write2Start, long write2End,
                       boolean write2Accepted, long validBeforeRelease, long releaseStart, long releaseEnd,
                       String released, long lostAt, long validAtAcquire) {
        /**
         * The end of the interval in which the holder was entitled to think it held the lock: its release, or the
         * end of its lease's local validity if that came first.
         */
        long validEnd() {
            if (validBeforeRelease > 0) {
                return Math.min(releaseStart, validBeforeRelease);
            }
            return validAtAcquire > 0 ? Math.min(releaseStart, validAtAcquire) : acquired;
        }
    }

    /**
     * A call that told its caller "held" at an instant, on a surface that shows no lease (a {@code Lock} view, a
     * registry's reentrant lock, ShedLock): the outer acquire and each reentrant one. The caller was told so
     * between {@code start} and {@code end}: a correct surface made sure, at some moment in between, that its
     * lease still held the lock.
     *
     * @param kind outer, reentrant or extend
     */
    record Claim(String op, String name, long start, long end, String kind) {
    }

    /** A reentrant acquire that told its caller the lease was lost ({@code LeaseLostException}): not a claim. */
    record Told(String op, String name, long start, long end) {
    }

    /**
     * A multi-lock acquire that came back empty at {@code end}; {@code heldAfter} lists the parts that Redis still
     * showed held by the asking client's thread right after (its inspect began at {@code end}), "-" if none.
     */
    record Miss(String op, String names, long start, long end, String heldAfter) {
    }

    /** An administrator's forceRelease of {@code name}, from the test JVM: it removed the holder of {@code token}. */
    record Force(String name, long start, long end, long token) {
    }

    /** A worker closed its client mid-flight between {@code start} and {@code end}, then opened another. */
    record Closed(String worker, long start, long end) {
    }

    /** An async acquire whose future had not completed within its bound. */
    record Hung(String op, String name, long start, String what) {
    }

    /** An acquire that gave up (timeout) or failed (error). */
    record Attempt(String op, String name, long requested, long ended, boolean error) {
    }

    /** Leadership ({@link LeaderWorker}): candidate {@code c} was created at {@code t}. */
    record Join(String c, long t) {
    }

    /**
     * Leadership: a line about term {@code epoch} of candidate {@code c} (ELECTED, REVOKED, QUIT, STILL); a REVOKED
     * line has the last instant the sampler saw the term current ({@code lastTrue}, -1 if never; else -1).
     */
    record TermEvent(String what, String c, long epoch, String cause, long t, long lastTrue) {
    }

    /** Leadership: the sampler last saw the term current at {@code lastTrue} (-1 never), not at {@code firstFalse}. */
    record NotLeader(String c, long epoch, long lastTrue, long firstFalse) {
    }

    /** Leadership: worker {@code w}'s sampler did not run between {@code from} and {@code to}. */
    record Stall(String w, long from, long to) {
    }

    final List<Join> joins = new ArrayList<>();
    final List<TermEvent> termEvents = new ArrayList<>();
    final List<NotLeader> notLeaders = new ArrayList<>();
    final List<Stall> stalls = new ArrayList<>();
    final List<Acquisition> acquisitions = new ArrayList<>();
    final List<Attempt> attempts = new ArrayList<>();
    final List<long[]> threads = new ArrayList<>();
    final List<Claim> claims = new ArrayList<>();
    final List<Told> told = new ArrayList<>();
    final List<Miss> misses = new ArrayList<>();
    final List<Force> forces = new ArrayList<>();
    final List<Closed> closes = new ArrayList<>();
    final List<Hung> hung = new ArrayList<>();

    static History read(List<Path> files) throws IOException {
        History history = new History();
        for (Path file : files) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                history.parse(line.split(" "));
            }
        }
        return history;
    }

    private void parse(String[] f) {
        switch (f[0]) {
            case "ACQ" -> acquisitions.add(new Acquisition(f[1], f[2], l(f[3]), l(f[4]), l(f[5]), l(f[6]), l(f[7]),
                    Boolean.parseBoolean(f[8]), l(f[9]), l(f[10]), Boolean.parseBoolean(f[11]), l(f[12]), l(f[13]),
                    l(f[14]), f[15], l(f[16]), l(f[17])));
            case "TIMEOUT" -> attempts.add(new Attempt(f[1], f[2], l(f[3]), l(f[4]), false));
            case "ERROR" -> attempts.add(new Attempt(f[1], f[2], l(f[3]), l(f[4]), true));
            case "THREADS" -> threads.add(new long[] {l(f[2]), l(f[3])});
            case "CLAIM" -> claims.add(new Claim(f[1], f[2], l(f[3]), l(f[4]), f[5]));
            case "TOLD" -> told.add(new Told(f[1], f[2], l(f[3]), l(f[4])));
            case "MISS" -> misses.add(new Miss(f[1], f[2], l(f[3]), l(f[4]), f[5]));
            case "FORCE" -> forces.add(new Force(f[1], l(f[2]), l(f[3]), l(f[4])));
            case "CLOSED" -> closes.add(new Closed(f[1], l(f[2]), l(f[3])));
            case "HUNG" -> hung.add(new Hung(f[1], f[2], l(f[3]), f[4]));
            case "JOIN" -> joins.add(new Join(f[1], l(f[2])));
            case "ELECTED", "QUIT", "STILL" -> termEvents.add(new TermEvent(f[0], f[1], l(f[2]), "-", l(f[3]), -1));
            case "REVOKED" -> termEvents.add(new TermEvent(f[0], f[1], l(f[2]), f[3], l(f[4]), l(f[5])));
            case "NOTLEADER" -> notLeaders.add(new NotLeader(f[1], l(f[2]), l(f[3]), l(f[4])));
            case "STALL" -> stalls.add(new Stall(f[1], l(f[2]), l(f[3])));
            default -> throw new IllegalArgumentException("unknown history line: " + String.join(" ", f));
        }
    }

    private static long l(String s) {
        return Long.parseLong(s);
    }
}
