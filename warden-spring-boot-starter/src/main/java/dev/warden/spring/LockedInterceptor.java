package dev.warden.spring;

import dev.warden.DistributedLock;
import dev.warden.Lease;
import dev.warden.LeaseLostException;
import dev.warden.LockClient;
import dev.warden.LockException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.StringValueResolver;

/**
 * Runs {@link Locked} methods under their lock. Each method's annotation is read and parsed once. Fair methods use
 * the application's client if it is fair, else a {@link FairClient} that this interceptor owns and its
 * {@link LockedPostProcessor} closes.
 */
final class LockedInterceptor implements MethodInterceptor {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final TemplateParserContext TEMPLATE = new TemplateParserContext();

    private final ObjectProvider<LockClient> client;
    private final BeanFactory beanFactory;
    private final StringValueResolver placeholders;
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final Map<Method, Plan> plans = new ConcurrentHashMap<>();
    private final FairClient fairClient;

    /**
     * @param client       looked up at the first call, so that proxies can be made before the client exists
     * @param wrapper      what the starter does to its client once built (observations), if anything; applied to
     *                     the fair client too
     * @param placeholders resolves {@code ${...}} in durations
     */
    LockedInterceptor(ObjectProvider<LockClient> client, ObjectProvider<WardenAutoConfiguration.ClientWrapper> wrapper,
                      BeanFactory beanFactory, StringValueResolver placeholders) {
        this.client = client;
        this.beanFactory = beanFactory;
        this.placeholders = placeholders;
        this.fairClient = new FairClient(fair -> {
            WardenAutoConfiguration.ClientWrapper wrap = wrapper.getIfAvailable();
            return wrap == null ? fair : wrap.wrap(fair);
        });
    }

    /** One method's parsed annotation. */
    private record Plan(Expression name, Duration waitFor, Duration lease, Duration holdAtLeast, boolean fair,
                        Locked.OnNotAcquired onNotAcquired, Object skipped) {
        /** @return the lease, or empty if the lock is held until the wait ran out */
        Optional<Lease> acquire(DistributedLock lock) throws InterruptedException {
            if (waitFor == null) {
                return Optional.of(lock.acquire());
            }
            return lease == null ? lock.tryAcquire(waitFor) : lock.tryAcquire(waitFor, lease);
        }
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Class<?> target = invocation.getThis() == null ? null : AopUtils.getTargetClass(invocation.getThis());
        Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), target);
        Plan plan = plans.computeIfAbsent(method, this::plan);
        String name = name(plan, method, invocation.getArguments());
        Optional<Lease> outer = CurrentLease.held(name);
        if (outer.isPresent()) {
            return reenter(invocation, name, outer.get());
        }
        Optional<Lease> lease = plan.acquire(client(plan, method).lock(name));
        if (lease.isEmpty()) {
            if (plan.onNotAcquired() == Locked.OnNotAcquired.SKIP) {
                return plan.skipped();
            }
            throw new LockNotAcquiredException(name, plan.waitFor());
        }
        return proceed(invocation, name, lease.get(), plan.holdAtLeast());
    }

    /**
     * Runs a method whose lock an outer {@link Locked} method of this thread holds, inside the outer lease, once
     * Redis confirmed that it still holds the lock; the outer method releases it.
     *
     * @throws LeaseLostException if the outer lease was lost: the method does not run
     */
    private static Object reenter(MethodInvocation invocation, String name, Lease outer) throws Throwable {
        if (!outer.confirm()) {
            throw new LeaseLostException("lock '" + name + "' was lost before a nested @Locked method on it could "
                    + "run: another holder may be running; the method did not run");
        }
        CurrentLease.push(outer);
        try {
            return invocation.proceed();
        } finally {
            CurrentLease.pop();
        }
    }

    /** @return the application's client, or for a fair method that client's fair twin unless it is fair itself */
    private LockClient client(Plan plan, Method method) {
        LockClient application = client.getObject();
        if (!plan.fair() || application.config().fair()) {
            return application;
        }
        try {
            return fairClient.of(application);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("@Locked(fair = true) on " + method + ": " + e.getMessage(), e);
        }
    }

    /** Closes the fair client, if one was created. */
    void close() {
        fairClient.close();
    }

    /**
     * Runs the method with the lease current, then releases it (keeping the lock until {@code holdAtLeast} after
     * it was acquired, if set); a lease lost meanwhile fails the call.
     */
    private static Object proceed(MethodInvocation invocation, String name, Lease lease, Duration holdAtLeast)
            throws Throwable {
        long acquiredAt = System.nanoTime();
        Object result;
        CurrentLease.push(lease);
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            CurrentLease.pop();
            try {
                if (!release(lease, holdAtLeast, acquiredAt)) {
                    failure.addSuppressed(lost(name));
                }
            } catch (LockException e) {
                failure.addSuppressed(e);
            }
            throw failure;
        }
        CurrentLease.pop();
        if (!release(lease, holdAtLeast, acquiredAt)) {
            throw lost(name);
        }
        return result;
    }

    /** @return whether the lease still held the lock */
    private static boolean release(Lease lease, Duration holdAtLeast, long acquiredAt) {
        if (holdAtLeast == null) {
            return lease.release();
        }
        return lease.releaseAfter(holdAtLeast.minusNanos(System.nanoTime() - acquiredAt));
    }

    private static LeaseLostException lost(String name) {
        return new LeaseLostException("lock '" + name + "' was lost while its @Locked method ran: another holder "
                + "may have run at the same time");
    }

    private String name(Plan plan, Method method, Object[] arguments) {
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(null, method, arguments,
                parameterNames);
        context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        Object value = plan.name().getValue(context);
        if (value == null || value.toString().isBlank()) {
            throw new IllegalArgumentException("@Locked on " + method + ": the lock name is empty for these "
                    + "arguments");
        }
        return value.toString();
    }

    private Plan plan(Method method) {
        Locked locked = AnnotatedElementUtils.findMergedAnnotation(method, Locked.class);
        if (locked == null) {
            throw new IllegalStateException("no @Locked on " + method);
        }
        Class<?> returns = method.getReturnType();
        if (Future.class.isAssignableFrom(returns) || CompletionStage.class.isAssignableFrom(returns)) {
            throw new IllegalStateException("@Locked on " + method + ": it returns " + returns.getSimpleName()
                    + ", and the lock would be released before that work ends; use the client's async API");
        }
        if (locked.onNotAcquired() == Locked.OnNotAcquired.SKIP && returns.isPrimitive() && returns != void.class) {
            throw new IllegalStateException("@Locked(onNotAcquired = SKIP) on " + method + ": it returns "
                    + returns + ", which has no value for a skipped call");
        }
        Expression name = PARSER.parseExpression(locked.value(), TEMPLATE);
        String waitText = placeholders.resolveStringValue(locked.waitFor());
        Duration wait = Locked.FOREVER.equalsIgnoreCase(waitText) ? null : duration(method, "waitFor", waitText);
        if (wait != null && wait.isNegative()) {
            throw new IllegalArgumentException("@Locked on " + method + ": waitFor must not be negative: " + wait);
        }
        String leaseText = placeholders.resolveStringValue(locked.lease());
        Duration lease = leaseText == null || leaseText.isBlank() ? null : duration(method, "lease", leaseText);
        if (lease != null && wait == null) {
            throw new IllegalArgumentException("@Locked on " + method + ": a fixed lease needs a finite waitFor");
        }
        String holdText = placeholders.resolveStringValue(locked.holdAtLeast());
        Duration holdAtLeast = holdText == null || holdText.isBlank() ? null
                : duration(method, "holdAtLeast", holdText);
        Object skipped = Optional.class.equals(returns) ? Optional.empty() : null;
        return new Plan(name, wait, lease, holdAtLeast, locked.fair(), locked.onNotAcquired(), skipped);
    }

    private static Duration duration(Method method, String attribute, String text) {
        try {
            return DurationStyle.detectAndParse(text.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("@Locked on " + method + ": " + attribute + " is not a duration: '"
                    + text + "'", e);
        }
    }
}
