package dev.warden.micrometer;

import dev.warden.Leadership;
import dev.warden.LockConfig;
import dev.warden.LockListener;
import dev.warden.Term;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Records what happens to a client's locks in a Micrometer {@link MeterRegistry}: a {@link LockListener} to set on
 * the client's configuration.
 *
 * <pre>{@code
 * LockClient client = LockClient.create(LockConfig.builder()
 *         .redisUri("redis://localhost:6379")
 *         .listener(WardenMetrics.builder(registry).build())
 *         .build());
 * }</pre>
 *
 * <table>
 * <caption>Meters</caption>
 * <tr><th>name</th><th>type</th><th>tags</th><th>what</th></tr>
 * <tr><td>{@code warden.lock.acquire}</td><td>timer</td><td>{@code outcome} (acquired, not_acquired, failed),
 * {@code waited} (true, false), {@code lock}</td><td>each acquire call, from the call to its end: its count by
 * outcome is the count of acquisitions, and with {@code waited=true} its time is the wait for a release</td></tr>
 * <tr><td>{@code warden.lock.held}</td><td>timer</td><td>{@code lock}</td><td>how long each lease held its lock,
 * recorded at release</td></tr>
 * <tr><td>{@code warden.lock.lost}</td><td>counter</td><td>{@code cause} (ran_out, not_in_redis), {@code lock}</td>
 * <td>leases lost</td></tr>
 * <tr><td>{@code warden.lock.errors}</td><td>counter</td><td>{@code operation} (acquire, renewal),
 * {@code exception}</td><td>failures, by the simple name of the exception's class</td></tr>
 * <tr><td>{@code warden.lock.renewal}</td><td>timer</td><td>{@code outcome} (renewed, failed)</td><td>the
 * watchdog's renewal requests (one per batch of leases), by round trip</td></tr>
 * <tr><td>{@code warden.lock.renewal.lag}</td><td>timer</td><td></td><td>how late the watchdog sent its most overdue
 * lease's renewal: near zero on a healthy client, growing when its scheduler is starved</td></tr>
 * <tr><td>{@code warden.lock.leases}</td><td>gauge</td><td></td><td>leases this client holds now</td></tr>
 * <tr><td>{@code warden.lock.waiters}</td><td>gauge</td><td></td><td>calls of this client waiting for a release
 * now</td></tr>
 * <tr><td>{@code warden.leadership.leader}</td><td>gauge</td><td>{@code election}</td><td>1 while a candidate of
 * this client leads the election ({@link dev.warden.Leadership}), else 0; from its first election on</td></tr>
 * <tr><td>{@code warden.leadership.elections}</td><td>counter</td><td>{@code election}</td><td>terms this client's
 * candidates began</td></tr>
 * <tr><td>{@code warden.leadership.revocations}</td><td>counter</td><td>{@code cause} (lost, stepped_down, closed),
 * {@code election}</td><td>terms that ended: {@code lost} is a leader deposed against its will</td></tr>
 * </table>
 *
 * <p>Every meter also carries the builder's common tags. Lock names can be unbounded (one lock per order, say),
 * and a tag per name then grows the registry without end: map names to a bounded set with
 * {@link Builder#lockTag(Function)}, or drop the tag with {@link Builder#withoutLockTag()}. The {@code election} tag
 * follows the same policy (an election is a lock of its name): it carries the mapped name, or is left out with the
 * {@code lock} tag. Where several elections share a tag value (or none), the leader gauge counts the terms this
 * client holds among them; so it does, briefly, for one election whose deposed leader has not learned yet that
 * another candidate of the same client was elected.
 *
 * <p>Events reach it on the client's event thread ({@link LockListener}), a little after they happen; the gauges
 * count from when the client was created with it.
 */
public final class WardenMetrics implements LockListener {
    /** The prefix of every meter's name but the leadership meters'. */
    public static final String PREFIX = "warden.lock";
    /** The prefix of the leadership meters' names. */
    public static final String LEADERSHIP_PREFIX = "warden.leadership";

    private final MeterRegistry registry;
    private final Tags common;
    private final Function<String, String> lockTag;
    private final AtomicLong leases = new AtomicLong();
    private final AtomicLong waiters = new AtomicLong();
    private final Timer renewed;
    private final Timer renewalFailed;
    private final Timer renewalLag;
    /**
     * The meters made so far, by what tells them apart: registering through a builder for each event costs more
     * than the event. Per lock tag value, so as bounded as the tag.
     */
    private final Map<List<Object>, Meter> meters = new ConcurrentHashMap<>();
    /** The terms this client holds, by {@code election} tag value (a list, for a null one): the leader gauges' state. */
    private final Map<List<String>, AtomicLong> leading = new ConcurrentHashMap<>();

    private WardenMetrics(Builder builder) {
        this.registry = builder.registry;
        this.common = builder.tags;
        this.lockTag = builder.lockTag;
        if (registry.find(PREFIX + ".leases").tags(common).gauge() != null) {
            // Micrometer would keep the first gauge and ignore this one: the counts of one client would be lost.
            throw new IllegalStateException("metrics of a Warden client with tags " + common + " are registered in "
                    + "this registry already: give each client its own tags, for example tags(\"client\", name)");
        }
        Gauge.builder(PREFIX + ".leases", leases, AtomicLong::get).tags(common)
                .description("Leases this client holds").register(registry);
        Gauge.builder(PREFIX + ".waiters", waiters, AtomicLong::get).tags(common)
                .description("Calls of this client waiting for a release").register(registry);
        this.renewed = renewalTimer("renewed");
        this.renewalFailed = renewalTimer("failed");
        this.renewalLag = Timer.builder(PREFIX + ".renewal.lag").tags(common)
                .description("How late the watchdog sent the most overdue renewal of a batch").register(registry);
    }

    /**
     * @param registry where the meters go
     * @return a builder of metrics recorded in {@code registry}
     * @throws NullPointerException if {@code registry} is null
     */
    public static Builder builder(MeterRegistry registry) {
        return new Builder(registry);
    }

    @Override
    public void onAcquire(Acquire event) {
        if (event.queued()) {
            waiters.decrementAndGet();
        }
        if (event.outcome() == Outcome.ACQUIRED) {
            leases.incrementAndGet();
        }
        String lock = lockTag(event.lock());
        ((Timer) meters.computeIfAbsent(Arrays.asList("acquire", lock, event.outcome(), event.queued()),
                key -> Timer.builder(PREFIX + ".acquire")
                        .tags(withLock(lock))
                        .tag("outcome", event.outcome().name().toLowerCase(Locale.ROOT))
                        .tag("waited", Boolean.toString(event.queued()))
                        .description("Acquire calls, from the call to its end")
                        .register(registry)))
                .record(event.waited());
        if (event.error() != null) {
            error("acquire", event.error());
        }
    }

    @Override
    public void onWaiting(String lock) {
        waiters.incrementAndGet();
    }

    @Override
    public void onRelease(Release event) {
        leases.decrementAndGet();
        String lock = lockTag(event.lock());
        ((Timer) meters.computeIfAbsent(Arrays.asList("held", lock),
                key -> Timer.builder(PREFIX + ".held").tags(withLock(lock))
                        .description("How long leases held their lock, recorded at release")
                        .register(registry)))
                .record(event.held());
    }

    @Override
    public void onLost(Loss event) {
        leases.decrementAndGet();
        String lock = lockTag(event.lock());
        ((Counter) meters.computeIfAbsent(Arrays.asList("lost", lock, event.cause()),
                key -> Counter.builder(PREFIX + ".lost").tags(withLock(lock))
                        .tag("cause", event.cause().name().toLowerCase(Locale.ROOT))
                        .description("Leases lost")
                        .register(registry)))
                .increment();
    }

    @Override
    public void onRenewal(Renewal event) {
        (event.error() == null ? renewed : renewalFailed).record(event.roundTrip());
        renewalLag.record(event.late());
        if (event.error() != null) {
            error("renewal", event.error());
        }
    }

    @Override
    public void onElected(Term term) {
        String election = lockTag(term.election());
        leaders(election).incrementAndGet();
        ((Counter) meters.computeIfAbsent(Arrays.asList("elections", election),
                key -> Counter.builder(LEADERSHIP_PREFIX + ".elections").tags(withElection(election))
                        .description("Terms of leadership this client's candidates began")
                        .register(registry)))
                .increment();
    }

    @Override
    public void onRevoked(Term term, Leadership.Revocation why) {
        String election = lockTag(term.election());
        leaders(election).decrementAndGet();
        ((Counter) meters.computeIfAbsent(Arrays.asList("revocations", election, why),
                key -> Counter.builder(LEADERSHIP_PREFIX + ".revocations").tags(withElection(election))
                        .tag("cause", why.name().toLowerCase(Locale.ROOT))
                        .description("Terms of leadership of this client's candidates that ended, by cause")
                        .register(registry)))
                .increment();
    }

    /** @return the count of terms held for an {@code election} tag value, its gauge registered at the first call */
    private AtomicLong leaders(String election) {
        return leading.computeIfAbsent(Collections.singletonList(election), key -> {
            AtomicLong terms = new AtomicLong();
            // Never below 0, even if an elected event was dropped (a listener far behind) and its revoked was not.
            Gauge.builder(LEADERSHIP_PREFIX + ".leader", terms, t -> Math.max(0, t.get())).tags(withElection(election))
                    .description("1 while a candidate of this client leads the election, else 0")
                    .register(registry);
            return terms;
        });
    }

    private Tags withElection(String tagValue) {
        return tagValue == null ? common : common.and(Tag.of("election", tagValue));
    }

    private Timer renewalTimer(String outcome) {
        return Timer.builder(PREFIX + ".renewal").tags(common).tag("outcome", outcome)
                .description("The watchdog's renewal requests, one per batch of leases").register(registry);
    }

    private void error(String operation, Throwable error) {
        ((Counter) meters.computeIfAbsent(Arrays.asList("errors", operation, error.getClass()),
                key -> Counter.builder(PREFIX + ".errors").tags(common)
                        .tag("operation", operation)
                        .tag("exception", error.getClass().getSimpleName())
                        .description("Failed lock operations, by exception")
                        .register(registry)))
                .increment();
    }

    /** @return the {@code lock} tag's value for a lock's name; null for none */
    private String lockTag(String lock) {
        return lockTag == null ? null : lockTag.apply(lock);
    }

    private Tags withLock(String tagValue) {
        return tagValue == null ? common : common.and(Tag.of("lock", tagValue));
    }

    @Override
    public String toString() {
        return "WardenMetrics{" + registry.getClass().getSimpleName() + ", tags=" + common + "}";
    }

    /** Builds {@link WardenMetrics}. Not thread-safe; each method validates its argument when called. */
    public static final class Builder {
        private final MeterRegistry registry;
        private Tags tags = Tags.empty();
        private Function<String, String> lockTag = Function.identity();

        private Builder(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /**
         * Adds tags to every meter, for example the client's name when an application has several clients.
         *
         * @param keysAndValues tag keys and values, alternating
         * @return this builder
         * @throws NullPointerException     if {@code keysAndValues} or one of them is null
         * @throws IllegalArgumentException if there is an odd number of them
         */
        public Builder tags(String... keysAndValues) {
            Objects.requireNonNull(keysAndValues, "keysAndValues");
            if (keysAndValues.length % 2 != 0) {
                throw new IllegalArgumentException("tags must be keys and values in pairs: " + keysAndValues.length
                        + " strings");
            }
            for (String s : keysAndValues) {
                Objects.requireNonNull(s, "tags: a key or value");
            }
            this.tags = tags.and(keysAndValues);
            return this;
        }

        /**
         * Tags the per-lock meters with {@code mapping}'s value for the lock's name instead of the name itself,
         * for example a pattern ({@code "orders:*"} for {@code "orders:42"}) when names are unbounded. A mapping
         * that returns null leaves the tag out for that name.
         *
         * @param mapping from lock name to tag value
         * @return this builder
         * @throws NullPointerException if {@code mapping} is null
         */
        public Builder lockTag(Function<String, String> mapping) {
            this.lockTag = Objects.requireNonNull(mapping, "mapping");
            return this;
        }

        /**
         * Leaves the {@code lock} tag out of every meter: one series per meter and outcome, whatever the names.
         *
         * @return this builder
         */
        public Builder withoutLockTag() {
            this.lockTag = null;
            return this;
        }

        /**
         * Registers the gauges and fixed meters, and returns the listener that records the rest; set it with
         * {@link LockConfig.Builder#listener}. Build one per client: the gauges count that client's leases.
         *
         * @return the metrics
         * @throws IllegalStateException if metrics with the same tags are in the registry already (another client's:
         *                               tell them apart with {@link #tags})
         */
        public WardenMetrics build() {
            return new WardenMetrics(this);
        }
    }
}
