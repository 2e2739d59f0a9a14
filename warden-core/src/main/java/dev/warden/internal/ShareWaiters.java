package dev.warden.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The waiting acquisitions of one client's shared locks, by the state key of their lock, so that a release can find
 * the waiter that is the queue's next in line and hand its share over locally ({@link ShareLease}).
 *
 * <p>A waiter is the queue's next in line when, as far as this client can tell, nobody is queued ahead of it in
 * Redis. Entries ahead of a waiter only ever leave the queue (it grows at its tail), so what its joining try found
 * stays true: if no waiter of another client was queued then ({@link ShareAcquisition.Place#clear}), only this
 * client's can be ahead of it, and this client knows where each of its own stands. A waiter of this client whose
 * joining try is in flight may be ahead of it if that try was sent before the waiter's place was known; one sent
 * after, or not sent yet, joins behind it.
 */
final class ShareWaiters {
    /** The waiting acquisitions by their lock's state key. Sets are added and removed by compute, atomically. */
    private final Map<String, Set<ShareAcquisition>> byLock = new ConcurrentHashMap<>();

    /** Before the acquisition's first try is sent. */
    void add(ShareKeys keys, ShareAcquisition waiter) {
        byLock.computeIfAbsent(keys.state(), key -> ConcurrentHashMap.newKeySet()).add(waiter);
    }

    void remove(ShareKeys keys, ShareAcquisition waiter) {
        byLock.computeIfPresent(keys.state(), (key, waiters) -> {
            waiters.remove(waiter);
            return waiters.isEmpty() ? null : waiters;
        });
    }

    /**
     * Reserves the waiter of this lock that is the queue's next in line, if it may take over a share of
     * {@code permits} with a renewed lease of {@code leaseMillis}: it asks for no more permits than that and for
     * the same lease. Nobody is passed: if the next in line may not take it over, or this client cannot tell who is
     * next, nobody is reserved.
     *
     * @return the reserved waiter, or null
     */
    ShareAcquisition reserveNext(ShareKeys keys, long permits, long leaseMillis) {
        Set<ShareAcquisition> waiters = byLock.get(keys.state());
        if (waiters == null) {
            return null;
        }
        List<ShareAcquisition.Place> places = new ArrayList<>(waiters.size());
        ShareAcquisition.Place next = null;
        for (ShareAcquisition waiter : waiters) {
            ShareAcquisition.Place place = waiter.place();
            if (place.waiting()) {
                places.add(place);
                if (place.score() != 0 && (next == null || place.score() < next.score())) {
                    next = place;
                }
            }
        }
        if (next == null || !next.clear() || !next.fits(permits, leaseMillis)) {
            return null;
        }
        for (ShareAcquisition.Place place : places) {
            if (place != next && place.score() == 0 && place.sent() && place.sentAt() - next.placedAt() <= 0) {
                // Its joining try may have reached Redis first.
                return null;
            }
        }
        return next.waiter().reserve(next.score()) ? next.waiter() : null;
    }
}
