package dev.warden.cli;

import java.util.Objects;
import java.util.function.Consumer;
import sun.misc.Signal;

/**
 * Where a SIGINT or SIGTERM received by {@code warden run} or {@code warden lead} goes, by phase: while warden waits
 * for the lock (or to lead), it interrupts the waiting thread; once the lock is held, it is kept for the command and
 * delivered the moment the command starts; after that, it goes straight to the command. {@code warden lead --rejoin}
 * goes back to waiting once the command has exited ({@link #ended}), as many times as it leads.
 *
 * <p>The phases change under this object's monitor, which the signal handler takes too. Without it, a signal that
 * arrives between the command's start and its registration here interrupts the thread that then waits for the
 * command, and warden fails with an InterruptedException instead of passing the signal on.
 */
final class SignalRelay {
    private final Thread waiter;
    private Consumer<String> command;
    private String pending;
    /** The last signal passed to the command since it started, or null. */
    private String delivered;
    private boolean waiting = true;

    /**
     * A relay in the waiting phase.
     *
     * @param waiter the thread that waits for the lock, interrupted by a signal in that phase
     * @throws NullPointerException if {@code waiter} is null
     */
    SignalRelay(Thread waiter) {
        this.waiter = Objects.requireNonNull(waiter, "waiter");
    }

    /**
     * A relay in the waiting phase that receives this process's SIGINT and SIGTERM from now on: install it before
     * waiting, so that a signal that comes while waiting or while the command starts is not lost.
     *
     * @param waiter the thread that waits, interrupted by a signal in that phase
     */
    static SignalRelay install(Thread waiter) {
        SignalRelay relay = new SignalRelay(waiter);
        for (String signal : new String[] {"INT", "TERM"}) {
            Signal.handle(new Signal(signal), received -> relay.received(signal));
        }
        return relay;
    }

    /** Called by the signal handler with the signal's name ({@code "INT"} or {@code "TERM"}). */
    synchronized void received(String signal) {
        if (command != null) {
            delivered = signal;
            command.accept(signal);
            return;
        }
        pending = signal;
        if (waiting) {
            waiter.interrupt();
        }
    }

    /**
     * Called by the waiting thread once it holds the lock: from now on no signal interrupts it. An interrupt already
     * made by a signal that came as the wait ended is cleared; that signal is still returned.
     *
     * @return the signal received so far, or null
     */
    synchronized String acquired() {
        waiting = false;
        if (pending != null) {
            Thread.interrupted();
        }
        return pending;
    }

    /** The signal received so far, or null. */
    synchronized String pending() {
        return pending;
    }

    /**
     * Called once the command has started: a signal kept for it is delivered now, and every later one as it comes.
     *
     * @param deliver sends a signal, by name, to the command
     * @throws NullPointerException if {@code deliver} is null
     */
    synchronized void started(Consumer<String> deliver) {
        command = Objects.requireNonNull(deliver, "deliver");
        if (pending != null) {
            String early = pending;
            pending = null;
            delivered = early;
            deliver.accept(early);
        }
    }

    /**
     * Called once the command has exited (or was not started), to wait again ({@code warden lead --rejoin}): from
     * now on a signal interrupts the waiter again, as before {@link #acquired}.
     *
     * @return the last signal passed to the command while it ran, else the one kept for a command that did not start,
     *         else null: a warden that got one stops instead of waiting again
     */
    synchronized String ended() {
        String got = delivered != null ? delivered : pending;
        command = null;
        waiting = true;
        delivered = null;
        pending = null;
        return got;
    }
}
