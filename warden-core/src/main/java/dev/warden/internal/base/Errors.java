package dev.warden.internal.base;

import dev.warden.IllegalLockStateException;
import dev.warden.LockConnectionException;
import dev.warden.LockException;
import dev.warden.LockTimeoutException;
import dev.warden.SemaphorePermitsException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.netty.channel.ChannelException;
import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Translates failures at the Redis boundary into Warden's {@link LockException} tree. */
public final class Errors {
    private static final Pattern PERMITS = Pattern.compile(
            "^WARDEN-PERMITS (\\d+) (\\d+)");

    private Errors() {
    }

    /**
     * Translates a failure of a Redis operation.
     *
     * @param error the failure, possibly wrapped by a future
     * @param what  the operation, for the message, such as {@code "acquire of lock 'orders:42'"}
     * @return the exception to throw or complete with
     */
    public static LockException translate(Throwable error, String what) {
        Throwable e = unwrap(error);
        if (e instanceof LockException lockException) {
            return lockException;
        }
        if (e instanceof UnexpectedReplyException) {
            return new LockException(what + ": " + e.getMessage(), e);
        }
        if (e instanceof RedisCommandTimeoutException) {
            return new LockTimeoutException(what + ": Redis did not answer in time (" + e.getMessage() + ")", e);
        }
        if (e instanceof RedisCommandInterruptedException) {
            Thread.currentThread().interrupt();
            return new LockException(what + ": interrupted", e);
        }
        if (e instanceof RedisCommandExecutionException) {
            LockException warden = wardenError(e, what);
            return warden != null ? warden
                    : new LockException(what + ": Redis answered with an error: " + e.getMessage(), e);
        }
        if (e instanceof RedisConnectionException || e instanceof IOException || e instanceof ChannelException
                || isConnectionState(e)) {
            Throwable answer = serverAnswer(e);
            return new LockConnectionException(what + (answer != null
                    ? ": Redis refused the connection: " + answer.getMessage()
                    : ": Redis unreachable: " + e.getMessage()), e);
        }
        return new LockException(what + ": " + e, e);
    }

    /**
     * Decodes an error reply that a Warden script made on purpose ({@code "WARDEN-PERMITS <stored> <named>"},
     * {@code share.lua}'s settle_capacity) into its exception; null for any other error.
     */
    private static LockException wardenError(Throwable e, String what) {
        String message = String.valueOf(e.getMessage());
        Matcher permits = PERMITS.matcher(message);
        if (permits.find()) {
            return permitsDiffer(what, Integer.parseInt(permits.group(1)), Integer.parseInt(permits.group(2)));
        }
        return null;
    }

    /** The failure of an operation on a semaphore in use that has {@code stored} permits, named with {@code named}. */
    public static SemaphorePermitsException permitsDiffer(String what, int stored, int named) {
        return new SemaphorePermitsException(what + ": the semaphore has " + stored
                + (stored == 1 ? " permit" : " permits") + ", not " + named
                + "; while it is in use every client must name the same number (resize() changes it)", stored, named);
    }

    /**
     * Translates the failure of an operation for its caller: as {@link #translate}, except that the
     * {@link IllegalLockStateException} of an operation the client's or the lease's state refused reaches the caller as
     * the {@code IllegalStateException} it is.
     *
     * @param error the failure, possibly wrapped by a future
     * @param what  the operation, for the message
     * @return the exception to throw or complete with
     */
    public static RuntimeException forCaller(Throwable error, String what) {
        Throwable e = unwrap(error);
        return e instanceof IllegalLockStateException refused ? refused : translate(e, what);
    }

    /**
     * The failure to throw from inside a stage of a future chain: as it is if the future would wrap it anyway.
     *
     * @param error a failure a stage received
     * @return an unchecked exception that carries it
     */
    public static CompletionException completion(Throwable error) {
        return error instanceof CompletionException wrapped ? wrapped : new CompletionException(error);
    }

    /**
     * Removes the wrappers futures add.
     *
     * @param error a failure
     * @return the innermost meaningful cause
     */
    public static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /**
     * The server's answer that failed a connection's handshake, such as {@code WRONGPASS} for a wrong password or a
     * disabled ACL user, or null: Lettuce reports it as the cause of "Unable to connect", which alone would read as
     * a network failure.
     */
    private static Throwable serverAnswer(Throwable e) {
        Throwable cause = e.getCause();
        for (int depth = 0; cause != null && depth < 8; depth++, cause = cause.getCause()) {
            if (cause instanceof RedisCommandExecutionException) {
                return cause;
            }
        }
        return null;
    }

    /**
     * Whether Lettuce reported the state of the connection: it does so with a plain {@link RedisException}
     * ("Connection closed", "Connection is closed", "Currently not connected"), while every answer of the server
     * is a {@link RedisCommandExecutionException} and a timeout a {@link RedisCommandTimeoutException}, both
     * handled before. Told by the exact type, not by the message.
     */
    private static boolean isConnectionState(Throwable e) {
        return e.getClass() == RedisException.class;
    }
}
