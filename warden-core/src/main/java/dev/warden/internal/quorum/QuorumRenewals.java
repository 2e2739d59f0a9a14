package dev.warden.internal.quorum;

import dev.warden.internal.lease.LeaseBase;
import dev.warden.internal.lease.Watchdog;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Renewals of a quorum's leases: one {@code renew.lua} call per batch on every server at once. A lease is renewed
 * when a majority of servers renewed it, lost when so many found it gone that no majority can hold it, and tried
 * again otherwise (servers that failed or did not answer in time count for neither).
 */
public final class QuorumRenewals implements Watchdog.Renewals<QuorumLease> {
    private final Quorum quorum;

    public QuorumRenewals(Quorum quorum) {
        this.quorum = quorum;
    }

    /** One group: each server takes any keys in one call, since a quorum's servers are not clusters. */
    @Override
    public Collection<List<QuorumLease>> groups(List<QuorumLease> due) {
        return List.of(due);
    }

    @Override
    public CompletableFuture<Watchdog.Verdict[]> renew(List<QuorumLease> batch) {
        return Fanout.until(quorum.nodes(), server -> server.scripts().renew(LeaseBase.renewals(batch)),
                outcomes -> decidedForAll(outcomes, batch.size())).thenApply(outcomes -> verdicts(outcomes, batch));
    }

    @Override
    public String lossReason() {
        return "a renewal found it held on fewer servers than a majority can be made of";
    }

    private boolean decidedForAll(List<Fanout.Outcome<boolean[]>> outcomes, int leases) {
        for (int i = 0; i < leases; i++) {
            int key = i;
            if (!quorum.decided(outcomes, renewed -> renewed[key])) {
                return false;
            }
        }
        return true;
    }

    private Watchdog.Verdict[] verdicts(List<Fanout.Outcome<boolean[]>> outcomes, List<QuorumLease> batch) {
        Watchdog.Verdict[] verdicts = new Watchdog.Verdict[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            int key = i;
            int renewed = Fanout.count(outcomes, reply -> reply[key]);
            int gone = Fanout.count(outcomes, reply -> !reply[key]);
            verdicts[i] = renewed >= quorum.majority() ? Watchdog.Verdict.RENEWED
                    : quorum.outOfReach(gone) ? Watchdog.Verdict.LOST
                    : Watchdog.Verdict.RETRY;
        }
        return verdicts;
    }
}
