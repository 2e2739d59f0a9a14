package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Every operation of the public API that talks to Redis has one blocking and one asynchronous form: for each
 * public method {@code m(args)} of the family's interfaces, but those that answer locally (named below with the
 * reason), there is {@code mAsync(args)} with the same parameters, returning a {@link CompletableFuture} and
 * declaring no checked exception. A blocking method added without its twin fails this test.
 */
class AsyncTwinsTest {
    /** The interfaces users call. */
    private static final List<Class<?>> API = List.of(LockClient.class, DistributedLock.class,
            DistributedReadWriteLock.class, DistributedSemaphore.class, Lease.class, MultiLease.class,
            Leadership.class);

    /** Methods that answer without Redis, by name: each needs no asynchronous form. */
    private static final Map<String, String> LOCAL = Map.ofEntries(
            Map.entry("name", "the name it was made with"),
            Map.entry("lockName", "the name it was made with"),
            Map.entry("names", "the names it was made with"),
            Map.entry("permits", "the semaphore's size as this handle was made"),
            Map.entry("config", "the client's configuration"),
            Map.entry("lock", "makes a handle; nothing is sent"),
            Map.entry("readWriteLock", "makes a handle; nothing is sent"),
            Map.entry("semaphore", "makes a handle; nothing is sent"),
            Map.entry("multiLock", "makes a handle; nothing is sent"),
            Map.entry("readLock", "a half of the handle"),
            Map.entry("writeLock", "a half of the handle"),
            Map.entry("asLock", "a java.util.concurrent view, blocking by contract"),
            Map.entry("withReplicaAcks", "a handle with another policy; nothing is sent"),
            Map.entry("acknowledgements", "counted when the lease was granted"),
            Map.entry("isHeld", "local state, by design without a round trip (confirm asks Redis)"),
            Map.entry("remaining", "local deadline"),
            Map.entry("onLost", "registers a callback"),
            Map.entry("leadership", "joins an election in the background; nothing is waited for"),
            Map.entry("isLeader", "local state: the term and its lease's local deadline"),
            Map.entry("term", "local state"),
            Map.entry("stepDown", "sends the release without waiting for it"),
            Map.entry("close", "AutoCloseable: release ignoring the answer (releaseAsync), or the client's shutdown"));

    @Test
    void everyBlockingOperationHasAnAsyncTwin() {
        List<String> missing = new ArrayList<>();
        for (Class<?> type : API) {
            for (Method method : type.getMethods()) {
                if (Modifier.isStatic(method.getModifiers()) || method.getDeclaringClass() == Object.class
                        || method.getName().endsWith("Async") || LOCAL.containsKey(method.getName())) {
                    continue;
                }
                if (method.getName().equals("fencingToken") && type == MultiLease.class
                        && method.getParameterCount() == 0) {
                    continue; // checked on Lease
                }
                if (method.getName().equals("awaitLeadership")) {
                    try {
                        type.getMethod("leadershipAsync"); // the wait's bound is the caller's, on the future
                    } catch (NoSuchMethodException e) {
                        missing.add("Leadership.awaitLeadership without leadershipAsync");
                    }
                    continue;
                }
                try {
                    Method twin = type.getMethod(method.getName() + "Async", method.getParameterTypes());
                    if (!CompletableFuture.class.isAssignableFrom(twin.getReturnType())) {
                        missing.add(type.getSimpleName() + "." + twin.getName() + " does not return a future");
                    }
                    if (twin.getExceptionTypes().length > 0) {
                        missing.add(type.getSimpleName() + "." + twin.getName() + " declares "
                                + Arrays.toString(twin.getExceptionTypes()));
                    }
                } catch (NoSuchMethodException e) {
                    missing.add(type.getSimpleName() + "." + method.getName()
                            + Arrays.toString(method.getParameterTypes()));
                }
            }
        }
        assertThat(missing).as("blocking methods without an async twin").isEmpty();
    }

    /** The exemptions name real methods, so that a rename does not leave a stale one behind. */
    @Test
    void everyExemptionIsAMethodOfTheApi() {
        Set<String> names = new java.util.HashSet<>();
        for (Class<?> type : API) {
            for (Method method : type.getMethods()) {
                names.add(method.getName());
            }
        }
        assertThat(names).containsAll(LOCAL.keySet());
    }
}
