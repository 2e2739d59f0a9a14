package dev.warden.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a client closes, for one deployment and for a quorum alike, leaving no lock of its own held: new work is
 * refused from the start; pending acquisitions fail at once; the requests in flight are waited for (a grant they
 * bring is released as it comes); every lease still held is released; only then do the connections close. Locks
 * that could not be released are named in a warning; they expire at the end of their leases.
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
        failPending.run();
        boolean interrupted = false;
        try {
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
}
