package dev.warden;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A separate JVM for {@link CloseLoggingTest}, run with Lettuce's log at WARN: opens clients that take, wait for and
 * release locks of every kind (so every connection, pub/sub included, is in use), closes each, some right after
 * their waiters subscribed, and exits. Arguments: redisUri rounds.
 */
public final class CloseQuietlyProcess {
    private CloseQuietlyProcess() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[1]);
        for (int round = 0; round < rounds; round++) {
            LockClient holder = LockClient.create(LockConfig.builder().redisUri(args[0]).keyPrefix("test:").build());
            LockClient waiter = LockClient.create(LockConfig.builder().redisUri(args[0]).keyPrefix("test:").build());
            String name = "close-" + round;
            Lease lock = holder.lock(name).acquire();
            Lease permits = holder.semaphore(name, 1).acquire();
            Lease write = holder.readWriteLock(name).writeLock().acquire();
            List<CompletableFuture<?>> waiting = new ArrayList<>();
            waiting.add(waiter.lock(name).acquireAsync(Duration.ofSeconds(10)));
            waiting.add(waiter.semaphore(name, 1).acquireAsync(1, Duration.ofSeconds(10)));
            waiting.add(waiter.readWriteLock(name).readLock().acquireAsync(Duration.ofSeconds(10)));
            if (round % 2 == 0) {
                lock.release();
                permits.release();
                write.release();
                for (CompletableFuture<?> future : waiting) {
                    ((Lease) future.get(10, TimeUnit.SECONDS)).release();
                }
            }
            // Odd rounds close with the waiters still queued and the holders still holding.
            waiter.close();
            holder.close();
        }
        System.out.println("closed " + rounds + " rounds");
    }
}
