package dev.warden.internal.inspect;

import dev.warden.Identity;
import dev.warden.LockInfo;
import dev.warden.internal.script.LockKeys;
import dev.warden.internal.script.Replies;
import dev.warden.internal.script.Scripts;
import dev.warden.internal.script.ShareKeys;
import dev.warden.internal.script.ShareScripts;
import dev.warden.internal.script.Tokens;
import dev.warden.internal.wire.InFlight;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Reads the state of the locks of one deployment for {@code inspect()} and listings: each lock's kind read by its
 * inspect script, then the identity records of its holders and waiters. Inspections are counted in flight; a
 * listing counts itself. Immutable.
 */
public final class Inspector {
    private final Scripts scripts;
    private final ShareScripts shareScripts;
    private final String prefix;
    private final InFlight inFlight;

    public Inspector(Scripts scripts, ShareScripts shareScripts, String prefix, InFlight inFlight) {
        this.scripts = scripts;
        this.shareScripts = shareScripts;
        this.prefix = prefix;
        this.inFlight = inFlight;
    }

    /** Reads one lock's state, counted in flight: {@code DistributedLock.inspect()}. */
    public CompletableFuture<LockInfo> lock(String name, LockKeys keys) {
        return inFlight.track(InFlight.Kind.WORK, () -> readLock(name, keys, identities()));
    }

    /**
     * Reads a shared lock's state, counted in flight.
     *
     * @param build makes the caller's view of the state from it and the identities of its holders and waiters
     */
    public <T> CompletableFuture<T> share(ShareKeys keys,
                                   BiFunction<Replies.ShareState, Map<Tokens.Origin, Identity>, T> build) {
        return inFlight.track(InFlight.Kind.WORK, () -> readShare(keys, identities(), build));
    }

    /**
     * @return how a listing of {@code kind} reads one lock by name, not counted in flight (the listing counts),
     *         each client's identity record read once for the whole listing
     */
    @SuppressWarnings("unchecked")
    public <T> Function<String, CompletableFuture<T>> reader(LockListing.Kind<T> kind) {
        IdentityReader identities = identities();
        Function<String, CompletableFuture<?>> read;
        if (kind == LockListing.LOCKS) {
            read = name -> readLock(name, LockKeys.of(prefix, name), identities);
        } else if (kind == LockListing.READ_WRITE_LOCKS) {
            read = name -> readShare(ShareKeys.of(prefix, name, ShareKeys.Kind.READ_WRITE), identities,
                    (state, named) -> state.readWrite(name, named));
        } else {
            read = name -> readShare(ShareKeys.of(prefix, name, ShareKeys.Kind.SEMAPHORE), identities,
                    (state, named) -> state.semaphore(name, named));
        }
        return name -> (CompletableFuture<T>) read.apply(name);
    }

    /** @return a reader of identity records for one inspection or listing: each client's record read once */
    IdentityReader identities() {
        return new IdentityReader(scripts, prefix);
    }

    private CompletableFuture<LockInfo> readLock(String name, LockKeys keys, IdentityReader identities) {
        return scripts.inspect(keys).thenCompose(state -> identities.info(name, state));
    }

    private <T> CompletableFuture<T> readShare(ShareKeys keys, IdentityReader identities,
                                               BiFunction<Replies.ShareState, Map<Tokens.Origin, Identity>, T> build) {
        return shareScripts.inspect(keys).thenCompose(state -> identities.named(state.origins(),
                named -> build.apply(state, named)));
    }
}
