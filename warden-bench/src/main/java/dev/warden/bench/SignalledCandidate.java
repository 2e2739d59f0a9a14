package dev.warden.bench;

import java.util.concurrent.CompletableFuture;

/** A {@link LeaderCandidate} whose library's elected callback completes an {@link ElectedSignal}. */
abstract class SignalledCandidate implements LeaderCandidate {
    /** Completed from the library's elected callback. */
    protected final ElectedSignal signal = new ElectedSignal();

    @Override
    public final CompletableFuture<Long> election() {
        return signal.current();
    }

    @Override
    public final CompletableFuture<Long> armNext() {
        return signal.armNext();
    }
}
