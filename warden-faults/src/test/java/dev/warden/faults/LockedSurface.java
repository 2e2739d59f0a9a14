package dev.warden.faults;

import dev.warden.Lease;
import dev.warden.LeaseLostException;
import dev.warden.spring.CurrentLease;
import dev.warden.spring.Locked;
import dev.warden.spring.LockNotAcquiredException;
import dev.warden.spring.WardenAutoConfiguration;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

/**
 * {@code @Locked} methods as a surface (issue #39, kind {@code locked}): a small Spring context per worker, with
 * Warden's auto-configuration and two beans. The outer bean's {@code @Locked("#{#p0}")} method is the worker's hold:
 * it takes the lease from {@link CurrentLease#require()} and hands it to the worker thread, which holds, writes with
 * its token and stretches as for a plain lease, while the method waits; each reentry is a call, on the method's
 * thread, to the inner bean's {@code @Locked} method on the same name (a claim if it ran, told lost if it threw
 * {@link LeaseLostException}); the release is the outer method's return, after which the interceptor releases.
 *
 * <p>{@code locked-trusting}: {@link TrustingLockedCalls}, which runs a nested call on the thread's word alone.
 */
final class LockedSurface implements LocksUnderTest {
    /** The wait of the outer method: the worker's loop asks for 2 s. */
    static final String WAIT = "2s";

    /** The two doors: the outer call, whose body gets the lease; a nested call on the same name. */
    interface Calls extends AutoCloseable {
        void outer(String name, Consumer<Lease> body);

        void inner(String name);

        @Override
        void close();
    }

    /** The outer bean of the context. */
    public static class Jobs {
        @Locked(value = "#{#p0}", waitFor = WAIT)
        public void hold(String name, Consumer<Lease> body) {
            body.accept(CurrentLease.require());
        }
    }

    /** The inner bean: a nested {@code @Locked} method on the same name. */
    public static class Steps {
        @Locked(value = "#{#p0}", waitFor = "0")
        public void step(String name) {
            CurrentLease.require();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(WardenAutoConfiguration.class)
    static class Beans {
        @Bean
        Jobs jobs() {
            return new Jobs();
        }

        @Bean
        Steps steps() {
            return new Steps();
        }
    }

    /** Warden's {@code @Locked} in a Spring context, configured as {@link LockTarget#configure} does (single only). */
    static Calls spring(String spec, Duration lease) {
        String[] parts = spec.split("\\|");
        if (!parts[0].equals("single")) {
            throw new IllegalArgumentException("the @Locked surface runs on a single server: " + spec);
        }
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("faults", Map.of(
                "warden.redis-uri", parts[1], "warden.key-prefix", "faults:",
                "warden.default-lease", lease.toMillis() + "ms", "warden.command-timeout", "500ms",
                "warden.metrics.enabled", "false", "management.health.warden.enabled", "false")));
        context.register(Beans.class);
        context.refresh();
        Jobs jobs = context.getBean(Jobs.class);
        Steps steps = context.getBean(Steps.class);
        return new Calls() {
            @Override
            public void outer(String name, Consumer<Lease> body) {
                jobs.hold(name, body);
            }

            @Override
            public void inner(String name) {
                steps.step(name);
            }

            @Override
            public void close() {
                context.close();
            }
        };
    }

    private final Calls calls;
    /** A thread per worker thread, on which the methods run (their lease is thread-bound). */
    private final Map<Thread, ExecutorService> methods = new ConcurrentHashMap<>();
    /**
     * The grants and returns that worker threads wait for: a close (the context closed mid-flight, its method
     * threads stopped) fails those still open, as a method stopped before it ran or returned would leave them.
     */
    private final java.util.Set<CompletableFuture<?>> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    LockedSurface(Calls calls) {
        this.calls = calls;
    }

    /** A message to the method's thread: reenter, or return (null). */
    private record Step(CompletableFuture<Boolean> done) {
    }

    @Override
    public Held acquire(String name, Duration wait) throws InterruptedException {
        CompletableFuture<Lease> granted = tracked(new CompletableFuture<>());
        CompletableFuture<Boolean> ended = tracked(new CompletableFuture<>());
        BlockingQueue<Step> steps = new LinkedBlockingQueue<>();
        ExecutorService method = methods.computeIfAbsent(Thread.currentThread(), t -> Executors.newSingleThreadExecutor(
                r -> {
                    Thread thread = new Thread(r, "locked-method-" + t.getName());
                    thread.setDaemon(true);
                    return thread;
                }));
        if (closed) {
            // A closed context's beans refuse; a method thread made now would outlive the close.
            method.shutdownNow();
            granted.cancel(false);
            ended.cancel(false);
            throw new IllegalStateException("the Spring context is closed");
        }
        method.execute(() -> {
            try {
                calls.outer(name, lease -> {
                    granted.complete(lease);
                    serve(name, steps);
                });
                ended.complete(true);
            } catch (LockNotAcquiredException e) {
                granted.complete(null);
            } catch (LeaseLostException e) {
                // Told at the return: the interceptor's release found the lease gone.
                ended.complete(false);
            } catch (RuntimeException e) {
                if (!granted.completeExceptionally(e)) {
                    ended.completeExceptionally(e);
                }
            }
        });
        Lease lease;
        try {
            lease = await(granted, wait.plus(Duration.ofSeconds(10)), "the outer @Locked call");
        } catch (RuntimeException e) {
            // Not answered in time: a method that gets the lock later returns at once rather than hold it.
            steps.add(new Step(null));
            throw e;
        }
        if (lease == null) {
            return null;
        }
        Held leased = WardenLocks.held(lease);
        return new Held() {
            @Override
            public long fence() {
                return leased.fence();
            }

            @Override
            public long validUntil() {
                return leased.validUntil();
            }

            @Override
            public long lostAt() {
                return leased.lostAt();
            }

            @Override
            public boolean reentrant() {
                return true;
            }

            @Override
            public boolean reenter() {
                CompletableFuture<Boolean> done = new CompletableFuture<>();
                steps.add(new Step(done));
                // A method stopped by a close returns without serving the step: not a claim.
                CompletableFuture<Boolean> returned = ended.handle((v, e) -> {
                    throw new IllegalStateException("the outer @Locked method had returned");
                });
                return await(done.applyToEither(returned, v -> v), Duration.ofSeconds(10), "a nested @Locked call");
            }

            @Override
            public boolean release() {
                steps.add(new Step(null));
                return await(ended, Duration.ofSeconds(10), "the outer @Locked call's return");
            }
        };
    }

    /** On the method's thread, inside the outer method: runs nested calls until told to return. */
    private void serve(String name, BlockingQueue<Step> steps) {
        for (int i = 0; i < 1000; i++) {
            Step step;
            try {
                step = steps.poll(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (step == null || step.done() == null) {
                return;
            }
            try {
                calls.inner(name);
                step.done().complete(true);
            } catch (RuntimeException e) {
                step.done().completeExceptionally(e);
            }
        }
    }

    /** The value, rethrowing what the method's thread threw (LeaseLostException: told lost). */
    private static <T> T await(CompletableFuture<T> future, Duration bound, String what) {
        try {
            return future.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + what, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " did not answer within " + bound);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private <T> CompletableFuture<T> tracked(CompletableFuture<T> future) {
        open.add(future);
        future.whenComplete((v, e) -> open.remove(future));
        return future;
    }

    @Override
    public void close() {
        closed = true;
        calls.close();
        methods.values().forEach(ExecutorService::shutdownNow);
        open.forEach(future -> future.completeExceptionally(new IllegalStateException("the Spring context closed")));
    }
}
