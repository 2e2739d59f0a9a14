package dev.warden.internal.wait;

import dev.warden.Ticker;
import dev.warden.internal.script.LockKeys;
import dev.warden.internal.script.QuietRenewal;
import dev.warden.internal.script.Scripts;
import dev.warden.internal.wire.InFlight;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tries of a client's quiet waiters of one lock when the holder TTL they were told runs out, made as one
 * request ({@code refresh.lua}) instead of one per waiter. A quiet registration lives until the holder's TTL as its
 * waiter's try saw it, plus a margin; a holder whose watchdog renews its lease outlives that, so every waiter would
 * try once per lease to find the lock renewed and register again. The first of them to come due renews all the
 * client's quiet waiters of the lock that are idle, and each goes back to sleep for the TTL now seen; where the lock
 * is no longer held by another, or a waiter is no longer registered, each tries on its own, as it would have.
 *
 * <p>One refresh per lock is in flight at a time, in requests of at most {@link #MAX_PER_REQUEST} waiters; a waiter
 * that comes due meanwhile tries on its own.
 */
public final class QuietRefresh {
    /** A waiter that may take part: one of this client's quiet waiters. */
    public interface Member {
        /**
         * Takes part in a refresh sent at ticker time {@code sentAt}, as if it were a try of its own, if it is idle
         * and registered quietly.
         *
         * @return what its own try would renew, or null
         */
        QuietRenewal claim(long sentAt);

        /** Its registration was renewed until the holder's TTL, {@code holderTtlMillis}, runs out: sleep on. */
        void renewed(long holderTtlMillis);

        /** It took part but was not renewed, or the refresh failed: try on its own. */
        void missed();

        /** It took no part (it could not be claimed, or a refresh of the lock is in flight): try on its own. */
        void alone();
    }

    /**
     * The most waiters one request renews: a script runs alone on the server, and 256 registrations keep it to
     * about a millisecond; more waiters take more requests.
     */
    static final int MAX_PER_REQUEST = 256;

    private final Notifier notifier;
    private final Scripts scripts;
    private final InFlight requests;
    private final Ticker ticker;
    private final String instanceId;
    /** The lock keys whose refresh is in flight. Guarded by this. */
    private final Set<String> refreshing = new HashSet<>();

    public QuietRefresh(Notifier notifier, Scripts scripts, InFlight inFlight, Ticker ticker, String instanceId) {
        this.notifier = notifier;
        this.scripts = scripts;
        this.requests = inFlight;
        this.ticker = ticker;
        this.instanceId = instanceId;
    }

    /**
     * {@code due}'s holder TTL ran out: renews it together with every other quiet waiter of the lock in this client,
     * or has it try on its own where a refresh of the lock is in flight already.
     */
    public void due(LockKeys keys, Member due) {
        synchronized (this) {
            if (!refreshing.add(keys.lock())) {
                due.alone();
                return;
            }
        }
        long sentAt = ticker.read();
        List<Member> members = new ArrayList<>();
        List<QuietRenewal> args = new ArrayList<>();
        claim(due, sentAt, members, args);
        for (Notifier.Waiter waiter : notifier.waiters(keys, true)) {
            if (waiter != due && waiter instanceof Member member) {
                claim(member, sentAt, members, args);
            }
        }
        if (members.size() <= 1) {
            // Alone: its own try costs the same request and also takes a lock found free.
            done(keys);
            members.forEach(Member::missed);
            if (members.isEmpty()) {
                due.alone();
            }
            return;
        }
        int chunks = (members.size() + MAX_PER_REQUEST - 1) / MAX_PER_REQUEST;
        AtomicInteger left = new AtomicInteger(chunks);
        for (int from = 0; from < members.size(); from += MAX_PER_REQUEST) {
            int to = Math.min(members.size(), from + MAX_PER_REQUEST);
            send(keys, members.subList(from, to), args.subList(from, to), left);
        }
    }

    /** Sends one request for some of the claimed waiters; the lock's refresh is over when every one has answered. */
    private void send(LockKeys keys, List<Member> members, List<QuietRenewal> args, AtomicInteger left) {
        requests.send(InFlight.Kind.WORK, () -> scripts.refresh(keys, instanceId, args),
                (reply, error) -> {
                    if (left.decrementAndGet() == 0) {
                        done(keys);
                    }
                    for (int i = 0; i < members.size(); i++) {
                        if (error == null && reply.held() && reply.renewed()[i]) {
                            members.get(i).renewed(reply.holderTtlMillis());
                        } else {
                            members.get(i).missed();
                        }
                    }
                }, error -> {
                    if (left.decrementAndGet() == 0) {
                        done(keys);
                    }
                    members.forEach(Member::missed);
                });
    }

    private static void claim(Member member, long sentAt, List<Member> members, List<QuietRenewal> args) {
        QuietRenewal claimed = member.claim(sentAt);
        if (claimed != null) {
            members.add(member);
            args.add(claimed);
        }
    }

    private synchronized void done(LockKeys keys) {
        refreshing.remove(keys.lock());
    }
}
