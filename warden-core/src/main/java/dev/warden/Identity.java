package dev.warden;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Who holds or waits for a lock: the client, its process and the thread that asked, as
 * {@link DistributedLock#inspect()} reports them.
 *
 * <p>Every token a client draws carries the client's tag and the asking thread's id; the rest is read from
 * the client's identity record, which a client writes to Redis once, when it first acquires, and keeps while it runs
 * (its name, host and process id, and the names of the threads that acquired through it). Where that record is
 * missing (Redis lost its data, and the client has not written it again yet, within a minute) only the tag and the
 * thread's id are known.
 *
 * @param client     the client's tag: the first characters of its random id, which tell a deployment's clients
 *                   apart (the same for every lock of one {@link LockClient})
 * @param threadId   the id ({@link Thread#getId()}) of the thread that asked for the lock. A lease handed over
 *                   locally, from one lease of a client to its next waiter, keeps its token, so its thread is the
 *                   one that took the lock from Redis
 * @param clientName the client's name ({@link LockConfig.Builder#clientName(String)}), where recorded
 * @param host       the host the client runs on, where recorded
 * @param pid        the client's process id, where recorded
 * @param threadName the asking thread's name, where recorded: not for unnamed threads (virtual threads usually),
 *                   nor beyond the first 1,024 named threads of one client
 */
public record Identity(String client, long threadId, Optional<String> clientName, Optional<String> host,
                       OptionalLong pid, Optional<String> threadName) {
    /**
     * Validates the components.
     *
     * @throws NullPointerException if a component is null
     */
    public Identity {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(clientName, "clientName");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(pid, "pid");
        Objects.requireNonNull(threadName, "threadName");
    }

    /**
     * Describes the holder or waiter in one line, the way {@code warden inspect} prints it: {@code "orders-7f9c3a
     * (host-a, pid 4211, thread scheduler-3)"}, or {@code "client 7f9c3a (thread #31)"} where the record is missing.
     *
     * @return the description
     */
    public String describe() {
        StringBuilder text = new StringBuilder(clientName.map(name -> name + "-" + client)
                .orElse("client " + client)).append(" (");
        host.ifPresent(value -> text.append(value).append(", "));
        pid.ifPresent(value -> text.append("pid ").append(value).append(", "));
        return text.append("thread ").append(threadName.orElse("#" + threadId)).append(')').toString();
    }
}
