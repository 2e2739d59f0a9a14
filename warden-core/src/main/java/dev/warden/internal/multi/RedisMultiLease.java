package dev.warden.internal.multi;

import dev.warden.Lease;
import dev.warden.MultiLease;
import dev.warden.internal.base.Errors;
import dev.warden.internal.base.Require;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The lease of a {@link MultiLock}: a lease per part, in the parts' order. Lost, once, when the first part is lost;
 * every operation acts on every part, and a failure of one part fails the whole with the others' failures
 * suppressed.
 */
final class RedisMultiLease implements MultiLease {
    private final MultiLock lock;
    private final List<Lease> parts;
    /** Whether a part was lost. Guarded by this. */
    private boolean lost;
    /** The lost-callbacks not run yet. Guarded by this. */
    private List<Runnable> callbacks = new ArrayList<>(1);

    RedisMultiLease(MultiLock lock, List<Lease> parts) {
        this.lock = lock;
        this.parts = parts;
        for (Lease part : parts) {
            part.onLost(this::partLost);
        }
    }

    private void partLost() {
        List<Runnable> toRun;
        synchronized (this) {
            if (lost) {
                return;
            }
            lost = true;
            toRun = callbacks;
            callbacks = null;
        }
        toRun.forEach(Runnable::run);
    }

    @Override
    public void onLost(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        synchronized (this) {
            if (!lost) {
                callbacks.add(callback);
                return;
            }
        }
        callback.run();
    }

    @Override
    public List<String> names() {
        return lock.names();
    }

    @Override
    public String lockName() {
        return lock.name();
    }

    @Override
    public long fencingToken(String name) {
        int index = lock.names().indexOf(name);
        Require.argument(index >= 0, "name must be one of %s: %s", lock.names(), name);
        return parts.get(index).fencingToken();
    }

    @Override
    public CompletableFuture<Long> fencingTokenAsync(String name) {
        int index = lock.names().indexOf(name);
        Require.argument(index >= 0, "name must be one of %s: %s", lock.names(), name);
        return parts.get(index).fencingTokenAsync();
    }

    /** The highest of the parts' tokens: rises with every holder of the same names. */
    @Override
    public long fencingToken() {
        long highest = 0;
        for (Lease part : parts) {
            highest = Math.max(highest, part.fencingToken());
        }
        return highest;
    }

    @Override
    public CompletableFuture<Long> fencingTokenAsync() {
        List<CompletableFuture<Long>> each = new ArrayList<>(parts.size());
        for (Lease part : parts) {
            each.add(part.fencingTokenAsync());
        }
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> each.stream().mapToLong(CompletableFuture::join).max().orElse(0));
    }

    @Override
    public int acknowledgements() {
        return parts.stream().mapToInt(Lease::acknowledgements).min().orElse(0);
    }

    @Override
    public boolean isHeld() {
        synchronized (this) {
            if (lost) {
                return false;
            }
        }
        return parts.stream().allMatch(Lease::isHeld);
    }

    @Override
    public Duration remaining() {
        Duration least = null;
        for (Lease part : parts) {
            Duration left = part.remaining();
            least = least == null || left.compareTo(least) < 0 ? left : least;
        }
        return isHeld() ? least : Duration.ZERO;
    }

    /** Confirms every part: true if Redis finds every one held (a part found gone is lost, and so is this). */
    @Override
    public boolean confirm() {
        // Every part asked at once: one round trip's wait, not one per part.
        return lock.context().await(confirmAsync(), lock.describe("confirm"));
    }

    @Override
    public CompletableFuture<Boolean> confirmAsync() {
        return eachAsync(Lease::confirmAsync);
    }

    @Override
    public boolean extend(Duration lease) {
        return each(part -> part.extend(lease));
    }

    @Override
    public CompletableFuture<Boolean> extendAsync(Duration lease) {
        return eachAsync(part -> part.extendAsync(lease));
    }

    @Override
    public boolean releaseAfter(Duration keep) {
        return each(part -> part.releaseAfter(keep));
    }

    @Override
    public CompletableFuture<Boolean> releaseAfterAsync(Duration keep) {
        return eachAsync(part -> part.releaseAfterAsync(keep));
    }

    /** Releases every part at once; true if every part was still held. */
    @Override
    public boolean release() {
        return lock.context().await(releaseAsync(), lock.describe("release"));
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync() {
        return eachAsync(Lease::releaseAsync);
    }

    @Override
    public void close() {
        release();
    }

    /**
     * Releases every part in the background, for a lease nobody will use.
     *
     * @return completes when every part's release has ended: with true if each was released
     */
    CompletableFuture<Boolean> abandon() {
        return lock.giveBack(parts);
    }

    /** Runs an operation on every part, even after one failed: true if it was true for all. */
    private boolean each(Function<Lease, Boolean> operation) {
        boolean all = true;
        RuntimeException failure = null;
        for (Lease part : parts) {
            try {
                all &= operation.apply(part);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return all;
    }

    /** {@link #each} without blocking: completes once every part's operation has. */
    private CompletableFuture<Boolean> eachAsync(Function<Lease, CompletableFuture<Boolean>> operation) {
        List<CompletableFuture<Boolean>> each = new ArrayList<>(parts.size());
        for (Lease part : parts) {
            each.add(started(() -> operation.apply(part)));
        }
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new)).handle((ignored, error) -> {
            boolean all = true;
            Throwable failure = null;
            for (CompletableFuture<Boolean> future : each) {
                Throwable partFailure = future.handle((value, e) -> e).join();
                if (partFailure == null) {
                    all &= future.join();
                } else if (failure == null) {
                    failure = Errors.unwrap(partFailure);
                } else {
                    failure.addSuppressed(Errors.unwrap(partFailure));
                }
            }
            if (failure != null) {
                throw Errors.completion(failure);
            }
            return all;
        });
    }

    /** An operation's future; what it throws when started fails the future instead. */
    private static CompletableFuture<Boolean> started(Supplier<CompletableFuture<Boolean>> operation) {
        try {
            return operation.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public String toString() {
        return "Lease{multi " + lock.names() + ", held=" + isHeld() + "}";
    }
}
