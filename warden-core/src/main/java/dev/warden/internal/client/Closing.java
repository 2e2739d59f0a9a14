package dev.warden.internal.client;

import dev.warden.internal.base.Errors;
import dev.warden.internal.base.Futures;
import dev.warden.internal.lease.LeaseBase;
import dev.warden.internal.script.Replies;
import dev.warden.internal.wire.InFlight;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a client closes, for one deployment and for a quorum alike, leaving no lock of its own held and nothing
 * queued: new work is refused from the start; once the tries being sent have reached the connection, pending
 * acquisitions fail, and leave their queues behind those tries; the requests in flight are waited for (a grant
 * they bring is released as it comes); every lease still held is released; the releases and queue leaves whose
 * outcome is unknown (they timed out) are sent again; only then do the connections close. Locks that could not be
 * released are named in a warning; they expire at the end of their leases.
 */
final class Closing {
    private static final Logger LOG = LoggerFactory.getLogger(Closing.class);

    private Closing() {
    }

    /**
     * @param failPending fails the client's pending acquisitions
     * @param leases      the leases the client holds, asked for after the requests in flight were answered
     * @param stop        stops the watchdog and closes the connections and threads
     */
    static void close(InFlight inFlight, long awaitNanos, Runnable failPending,
                      Supplier<Collection<? extends LeaseBase>> leases, Runnable stop) {
        inFlight.close();
        boolean interrupted = false;
        try {
            // Tries still being sent reach Redis ahead of the queue leaves that failing their acquisitions sends.
            if (!inFlight.awaitSent(awaitNanos)) {
                LOG.warn("requests still being sent on close; a lock they take is released when they answer");
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        failPending.run();
        try {
            if (interrupted) {
                throw new InterruptedException();
            }
            // Replies to tries already sent may still grant locks, which are released as they come.
            inFlight.awaitNone(awaitNanos);
            List<String> unreleased = Collections.synchronizedList(new ArrayList<>());
            for (LeaseBase lease : new ArrayList<>(leases.get())) {
                Futures.whenDone(lease.abandon(), (released, error) -> {
                    if (error != null || !released) {
                        unreleased.add(lease.lockName());
                    }
                }, "the release on close", lease.lockName());
            }
            if (!inFlight.awaitNone(awaitNanos)) {
                LOG.warn("{} requests still unanswered on close", inFlight.count());
            }
            settle(inFlight, awaitNanos);
            if (!unreleased.isEmpty()) {
                LOG.warn("could not release {} on close; they expire at the end of their leases", unreleased);
            }
        } catch (InterruptedException e) {
            interrupted = true;
            LOG.warn("interrupted while releasing leases on close; the rest expire at the end of their leases");
        }
        stop.run();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Sends again the clean-ups whose outcome is unknown ({@link InFlight#unsettled}): releases and queue leaves
     * that timed out, often without ever being written, during the client's life or its close. Each round waits for
     * its answers; one whose outcome is again unknown comes back for the next round, until {@code awaitNanos} has
     * passed. What is left then is named in a warning.
     */
    private static void settle(InFlight inFlight, long awaitNanos) throws InterruptedException {
        long end = System.nanoTime() + awaitNanos;
        List<InFlight.Unsettled> round = inFlight.takeUnsettled();
        while (!round.isEmpty()) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                LOG.warn("could not release {} on close (no answer); they expire at the end of their leases",
                        round.stream().map(InFlight.Unsettled::lock).distinct().toList());
                return;
            }
            LOG.debug("sending {} unanswered clean-ups again on close", round.size());
            for (InFlight.Unsettled unsettled : round) {
                Supplier<CompletableFuture<Object>> again = () -> unsettled.cleanup().get().thenApply(reply -> reply);
                inFlight.sendCleanup(unsettled.lock(), again, (reply, error) -> {
                    if (error != null && !InFlight.uncertain(error)) {
                        failedOnClose(unsettled, error);
                    }
                }, error -> failedOnClose(unsettled, error));
            }
            inFlight.awaitNone(left);
            round = inFlight.takeUnsettled();
        }
    }

    private static void failedOnClose(InFlight.Unsettled unsettled, Throwable error) {
        LOG.warn("release of '{}' on close failed; it expires at the end of its lease: {}", unsettled.lock(),
                Errors.unwrap(error).toString());
    }
}
