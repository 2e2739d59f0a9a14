package dev.warden.internal.share;

import dev.warden.internal.script.ShareKeys;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The waiting acquisitions of one client's shared locks, by the state key of their lock, so that a release can find
 * the waiters that are the queue's next in line and hand its share over to them locally ({@link ShareLease}).
 *
 * <p>A waiter is the queue's next in line when, as far as this client can tell, nobody is queued ahead of it in
 * Redis. Entries ahead of a waiter only ever leave the queue (it grows at its tail), so what its joining try found
 * stays true: if no waiter of another client was queued then ({@link ShareAcquisition.Place#clear}), only this
 * client's can be ahead of it, and this client knows where each of its own stands. A waiter of this client whose
 * joining try is in flight may be ahead of it if that try was sent before the waiter's place was known; one sent
 * after, or not sent yet, joins behind it.
 */
public final class ShareWaiters {
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
     * Reserves the waiters of this lock that are the queue's next in line, in their order, as long as they may
     * take over a share of {@code permits} together, each with a renewed lease of {@code leaseMillis}
     * ({@link ShareAcquisition.Place#fits}): such as the readers queued behind a writer that releases. Nobody is
     * passed: it stops at the first waiter that may not take part, and reserves nobody if this client cannot tell
     * who is next.
     *
     * @return the reserved waiters, first first; empty if none
     */
    List<ShareAcquisition> reserveNext(ShareKeys keys, long permits, long leaseMillis) {
        Set<ShareAcquisition> waiters = byLock.get(keys.state());
        if (waiters == null) {
            return List.of();
        }
        List<ShareAcquisition.Place> placed = new ArrayList<>(waiters.size());
        long unplacedSince = Long.MAX_VALUE;
        boolean unplaced = false;
        for (ShareAcquisition waiter : waiters) {
            ShareAcquisition.Place place = waiter.place();
            if (!place.waiting()) {
                continue;
            }
            if (place.score() != 0) {
                placed.add(place);
            } else if (place.sent()) {
                // Its joining try may reach Redis ahead of any waiter whose place was known only after it was sent.
                unplacedSince = unplaced ? Math.min(unplacedSince, place.sentAt()) : place.sentAt();
                unplaced = true;
            }
        }
        placed.sort(Comparator.comparingLong(ShareAcquisition.Place::score));
        List<ShareAcquisition> reserved = new ArrayList<>();
        long left = permits;
        for (ShareAcquisition.Place place : placed) {
            if (!place.clear() || !place.fits(left, leaseMillis)
                    || (unplaced && unplacedSince - place.placedAt() <= 0)
                    || !place.waiter().reserve(place.score())) {
                break;
            }
            reserved.add(place.waiter());
            left -= place.waiter().permits();
        }
        return reserved;
    }
}
