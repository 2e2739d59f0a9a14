package dev.warden.internal.wire;

import dev.warden.internal.lock.RedisLock;

/** A wire class that names a lock, the kind of dependency {@code LayersTest} must report. Test code only. */
final class UpwardDependency {
    private UpwardDependency() {
    }

    static String nameOf(RedisLock lock) {
        return lock.name();
    }
}
