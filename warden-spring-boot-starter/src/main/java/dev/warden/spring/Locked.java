package dev.warden.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a Spring bean's method under a Warden lock: the lock is taken before the method starts and released after it
 * returns or throws. Works on the bean's proxy, so a call from inside the same object is not locked (as with
 * {@code @Transactional}). With {@code @Transactional} on the same method, the lock is taken before the
 * transaction starts and released after it has committed or rolled back, so that the next holder sees its writes.
 *
 * <pre>{@code
 * @Locked(value = "orders:#{#order.id}", waitFor = "5s")
 * public void ship(Order order) {
 *     long fence = CurrentLease.require().fencingToken();   // for writes that the store checks
 *     ...
 * }
 * }</pre>
 *
 * <p>The method's lease is {@link CurrentLease#get()} while it runs. A method that returns a
 * {@link java.util.concurrent.Future} or {@link java.util.concurrent.CompletionStage} is refused (the lock would
 * be released before the work it starts ends): take the lock with the client's asynchronous API instead.
 *
 * <p>Reentrant per thread: a {@link Locked} method called, on the same thread, while another holds the same lock
 * name (directly or further out) runs inside that lease, after asking Redis whether it still holds the lock
 * ({@link dev.warden.Lease#confirm()}); if it does not, the nested call fails with
 * {@link dev.warden.LeaseLostException} without running. Only the outermost method releases the lock.
 *
 * <p>If the lease is lost while the method runs (a pause longer than the lease, Redis restarted without its data),
 * the call ends with {@link dev.warden.LeaseLostException} after the method: another holder may have run at the
 * same time. If the method threw, that exception is added to it as suppressed.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Locked {
    /** {@link #waitFor} value for waiting as long as it takes. */
    String FOREVER = "forever";

    /**
     * The lock's name: a template whose {@code #{...}} parts are SpEL over the method's arguments, by name
     * ({@code #order}, with parameter names compiled in) or position ({@code #p0}), and beans ({@code @clock}).
     * Plain text is a fixed name.
     *
     * @return the name or its template
     */
    String value();

    /**
     * How long to wait for the lock, in Spring's duration format ({@code 0}, {@code 500ms}, {@code 5s},
     * {@code PT1M}) or {@link #FOREVER}; property placeholders ({@code ${orders.lock-wait:5s}}) are resolved. The
     * default, {@code 0}, tries once.
     *
     * @return the wait
     */
    String waitFor() default "0";

    /**
     * A fixed lease, in the same format: the lock is released after it even if the method still runs (and the
     * call ends with {@link dev.warden.LeaseLostException}). Empty (the default) for the client's default lease,
     * renewed by the watchdog for as long as the method runs.
     *
     * @return the lease, or empty
     */
    String lease() default "";

    /**
     * The shortest time the lock stays held, in the same format, counted from when it was acquired: a method that
     * ends sooner leaves the lock held in Redis until then ({@link dev.warden.Lease#releaseAfter}), so that a
     * {@code @Scheduled} job on several instances runs once per period, not once per instance (ShedLock's
     * {@code lockAtLeastFor}). Empty (the default) to release when the method ends.
     *
     * @return the least hold, or empty
     */
    String holdAtLeast() default "";

    /**
     * Whether the lock is taken in fair mode ({@link dev.warden.LockConfig.Builder#fair}): strictly in the order its
     * waiters started waiting, across processes and among this one's threads. If the application's
     * {@link dev.warden.LockClient} is fair already, it takes the lock; otherwise a second client does, made from the
     * application client's configuration with fair mode on, created at the first fair call (none if no method is
     * fair), shared by every fair method of the application context and closed with it. The default, {@code false},
     * takes the lock with the application's client as it is configured (fair if it is).
     *
     * <p>Every user of one lock name must use the same mode: a name locked here with {@code fair = true} must be
     * locked in fair mode everywhere else too (other methods, other applications, direct uses of a client), and
     * one locked with {@code false} must be locked with clients that are not fair. A client with a quorum or with
     * replica acknowledgements cannot be fair: with one, every call of a fair method, from the first, throws
     * {@link IllegalStateException} naming the reason, and the method does not run.
     *
     * @return whether the lock is taken in fair mode
     */
    boolean fair() default false;

    /**
     * What happens when the lock is not acquired within {@link #waitFor}.
     *
     * @return the policy
     */
    OnNotAcquired onNotAcquired() default OnNotAcquired.THROW;

    /** What a call does when its lock is held by another until its wait runs out. */
    enum OnNotAcquired {
        /** Throws {@link LockNotAcquiredException}; the method does not run. */
        THROW,
        /**
         * Returns without running the method: {@code null}, or an empty {@link java.util.Optional} for a method
         * that returns one. Refused for a method that returns a primitive. For jobs that must run on one instance
         * only.
         */
        SKIP
    }
}
