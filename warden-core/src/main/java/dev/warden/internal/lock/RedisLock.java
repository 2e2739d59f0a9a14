package dev.warden.internal.lock;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LockInfo;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Require;
import dev.warden.internal.lease.LockBase;
import dev.warden.internal.lease.ThreadHolds;
import dev.warden.internal.script.LockKeys;
import dev.warden.internal.script.Registration;
import dev.warden.internal.script.Replies;
import dev.warden.internal.wait.Notifier;
import dev.warden.internal.wire.InFlight;
import dev.warden.internal.wire.Replicas;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A named lock of one client. Stateless apart from its {@link Lock} view. */
public final class RedisLock extends LockBase {
    private static final Logger LOG = LoggerFactory.getLogger(RedisLock.class);
    private final LockContext context;
    private final String name;
    private final LockKeys keys;
    private final Replicas replicas;
    private final boolean fair;
    private final boolean queued;

    public RedisLock(LockContext context, String name, Replicas replicas) {
        this.context = context;
        this.name = name;
        this.keys = LockKeys.of(context.config().keyPrefix(), name);
        this.replicas = replicas;
        this.fair = context.config().fair();
        this.queued = fair || !replicas.required();
    }

    /** @return whether this lock grants in strict arrival order, also within a client (fair mode) */
    public boolean fair() {
        return fair;
    }

    /**
     * @return whether this lock's waiters queue in Redis and a release grants the lock to the oldest of them: in
     *         fair mode, and in the default mode unless grants need replica acknowledgements (a grant made inside
     *         a release could not wait for them), where a release wakes the waiters to try again instead
     */
    boolean queued() {
        return queued;
    }

    /**
     * Releases the lock if this token holds it, in this lock's mode. Where waiters queue ({@link #queued}) this also
     * takes the token out of the queue, and a grant to a waiter of this client is passed to that waiter here (the
     * script announces only grants to other clients).
     *
     * @return completes with whether the token still held the lock
     */
    public CompletableFuture<Boolean> release(String token) {
        if (!queued) {
            return context.scripts().release(keys, token, context.instanceId());
        }
        return releaseQueued(token, List.of()).thenApply(Replies.Release::held);
    }

    /**
     * Releases by token where waiters queue, registering first the waiters of this client held back for this lease
     * ({@link Notifier#board}); each is told whether the script ran.
     */
    CompletableFuture<Replies.Release> releaseQueued(String token, List<Notifier.Waiter> held) {
        List<Notifier.Waiter> riders = new ArrayList<>(held.size());
        List<Registration> args = board(held, riders);
        // Without an answer the lease's hold-back ends and every rider tries on its own.
        Runnable failed = () -> {
            endHoldBack(token);
            riders.forEach(waiter -> waiter.boarded(false));
        };
        try {
            // The reply's handling is attached before the script is sent, so that it runs as the answer comes: a
            // waiter of this client that the release grants the lock to is still registered then, even if its own
            // try (sent after this release) finds the grant too. Handled later, that try could have made its lease
            // and left, and the grant would seem to be a gone waiter's, passed on under the lease.
            return context.scripts().releaseQueued(keys, token, context.instanceId(), args,
                    reply -> reply.whenComplete((status, error) -> {
                        if (error != null) {
                            failed.run();
                        }
                    }).thenApply(status -> {
                        try {
                            if (status instanceof Replies.GrantedHere here) {
                                grantedHere(here);
                            }
                        } finally {
                            // After the grant: a waiter held back for this lease waits on if a waiter of this
                            // client holds next. Also when handing the grant over failed (that failure is the
                            // release's), so that no rider is left waiting for a word.
                            endHoldBack(token);
                            riders.forEach(waiter -> waiter.boarded(status.held()));
                        }
                        return status;
                    }));
        } catch (RuntimeException e) {
            failed.run();
            throw e;
        }
    }

    /**
     * A release of this client granted the lock to a token of this client: its waiter takes it. A token that no
     * waiter of this client has any more (it gave up, or took the lock over locally with another token and its
     * registration outlived a failed removal) passes the lock on. The reply is handled before any answer to a
     * request sent after the release ({@link #releaseQueued}), so the waiter's own try cannot have made a lease of
     * this grant yet.
     */
    private void grantedHere(Replies.GrantedHere here) {
        String granted = here.token();
        if (context.notifier().assigned(granted, here.fence(), here.arm(), here.upcoming())) {
            return;
        }
        context.inFlight().sendCleanup(name, () -> releaseQueued(granted, List.of()), (ignored, e) -> {
            if (e != null) {
                LOG.debug("passing on a grant of '{}' to a gone waiter failed: {}", name, e.toString());
            }
        }, e -> LOG.warn("passing on a grant of '{}' to a gone waiter failed", name, e));
    }

    /**
     * Fair mode: after a waiter of this client took the lock over locally from the lease with {@code token},
     * removes its registration and registers the waiters held back for that lease ({@link Notifier#passOn}); each
     * is told whether the script ran. Completes with the first tokens of the queue, or null if the key no longer
     * holds the token.
     */
    CompletableFuture<List<String>> consumeFair(String token, String waiter, List<Notifier.Waiter> held) {
        List<Notifier.Waiter> riders = new ArrayList<>(held.size());
        List<Registration> args = board(held, riders);
        CompletableFuture<List<String>> reply;
        try {
            reply = context.scripts().consumeFair(keys, token, waiter, context.instanceId(), args);
        } catch (RuntimeException e) {
            riders.forEach(rider -> rider.boarded(false));
            throw e;
        }
        return reply.whenComplete((queue, error) -> riders.forEach(rider -> rider.boarded(error == null)));
    }

    /** The lease with that token no longer holds back this client's waiters ({@link Notifier#ended}). */
    private void endHoldBack(String token) {
        if (queued) {
            context.notifier().ended(keys, token);
        }
    }

    /** The registrations of waiters held back for a lease, for its script to make; {@code riders} gets them. */
    private List<Registration> board(List<Notifier.Waiter> held, List<Notifier.Waiter> riders) {
        if (held.isEmpty()) {
            // Every release but one after a hold-back: no list, no clock read.
            return List.of();
        }
        List<Registration> args = new ArrayList<>(held.size());
        long sentAt = context.ticker().read();
        for (Notifier.Waiter waiter : held) {
            Registration registration = waiter.board(sentAt);
            if (registration != null) {
                riders.add(waiter);
                args.add(registration);
            }
        }
        return args;
    }

    /** @return how many replicas must acknowledge this lock's grants and renewals */
    public Replicas replicas() {
        return replicas;
    }

    @Override
    public DistributedLock withReplicaAcks(int replicas, Duration timeout) {
        Require.replicaAcks(replicas, timeout, context.config().commandTimeout());
        if (fair && replicas > 0) {
            throw new UnsupportedOperationException("replica acknowledgements are not supported in fair mode");
        }
        return new RedisLock(context, name, Replicas.of(replicas, timeout));
    }

    @Override
    public String name() {
        return name;
    }

    public LockKeys keys() {
        return keys;
    }

    /** Names an operation on this lock for error messages, with its key. */
    @Override
    public String describe(String operation) {
        return operation + " of lock '" + name + "' (key " + keys.lock() + ")";
    }

    @Override
    public ThreadHolds threadHolds() {
        return context().threadHolds();
    }

    @Override
    public LockContext context() {
        return context;
    }

    @Override
    public CompletableFuture<LockInfo> inspectRequest() {
        return context.inspect(name, keys);
    }

    @Override
    public CompletableFuture<OptionalLong> forceReleaseRequest() {
        return context.inFlight().track(InFlight.Kind.WORK,
                () -> context.scripts().forceRelease(keys, context.instanceId(), queued)).thenApply(removed -> {
                    context.notifier().wakeOne(keys, queued);
                    return removed;
                });
    }

    @Override
    public String toString() {
        return "DistributedLock{" + name + "}";
    }

    @Override
    public CompletableFuture<Optional<Lease>> start(long waitNanos, long leaseMillis, boolean renewing,
                                             Events.AcquireWatch watch) {
        return new Acquisition(this, context(), waitNanos, leaseMillis, renewing, watch).start().result;
    }

    @Override
    public CompletableFuture<Boolean> abandon(Lease lease) {
        return ((RedisLease) lease).abandon();
    }

}
