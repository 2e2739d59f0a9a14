package dev.warden.internal.script;

/**
 * One lease in a renewal request: the keys of its lock, its token, and the lease in ms that the renewal sets from
 * the moment Redis runs it.
 *
 * @param <K>    the keys of the lock's kind ({@link LockKeys} or {@link ShareKeys})
 * @param keys   the lock's keys
 * @param token  the lease's token
 * @param millis the lease that the renewal sets
 */
public record Renewal<K>(K keys, String token, long millis) {
}
