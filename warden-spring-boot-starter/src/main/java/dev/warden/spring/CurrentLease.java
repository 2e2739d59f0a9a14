package dev.warden.spring;

import dev.warden.Lease;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The lease of the {@link Locked} method running on this thread, for its fencing token: the innermost, when locked
 * methods call each other.
 */
public final class CurrentLease {
    private static final ThreadLocal<Deque<Lease>> LEASES = ThreadLocal.withInitial(ArrayDeque::new);

    private CurrentLease() {
    }

    /** @return the lease of the innermost {@link Locked} method running on this thread, if any */
    public static Optional<Lease> get() {
        return Optional.ofNullable(LEASES.get().peek());
    }

    /**
     * @return the lease of the innermost {@link Locked} method running on this thread
     * @throws IllegalStateException if no {@link Locked} method runs on this thread
     */
    public static Lease require() {
        return get().orElseThrow(() -> new IllegalStateException("no @Locked method runs on this thread"));
    }

    /** @return the lease by which a {@link Locked} method running on this thread holds lock {@code name}, if any */
    static Optional<Lease> held(String name) {
        Deque<Lease> leases = LEASES.get();
        if (leases.isEmpty()) {
            LEASES.remove();
            return Optional.empty();
        }
        for (Lease lease : leases) {
            if (lease.lockName().equals(name)) {
                return Optional.of(lease);
            }
        }
        return Optional.empty();
    }

    static void push(Lease lease) {
        LEASES.get().push(lease);
    }

    static void pop() {
        Deque<Lease> leases = LEASES.get();
        leases.pop();
        if (leases.isEmpty()) {
            LEASES.remove();
        }
    }
}
