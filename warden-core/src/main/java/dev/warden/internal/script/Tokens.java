package dev.warden.internal.script;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

/**
 * Owner tokens, drawn for every acquisition: 96 bits from {@link SecureRandom} in URL-safe Base64 (16 characters;
 * guessing a live token takes 2^95 tries on average), then the token's origin: {@code ".<client tag>.<thread id>"},
 * the first {@value #TAG_CHARS} characters of the client's id and the asking thread's id in base 36
 * ({@link Origin}). A token never contains a colon. The origin lets {@code inspect} name a holder or a waiter
 * (through the client's identity record, {@code IdentityRecord}) without a request. A token is 26 to 28 characters
 * for thread ids below 46,656, so a held lock's value ({@code "<16-digit fence>:<token>"}) stays within the 44 bytes
 * that Redis embeds in the key's object where the thread's id is below 1,296, and an unfenced one ({@code
 * ":<token>"}) below 46,656: a lock costs what it cost with the 128-bit tokens before origins. A lease that takes the
 * lock over from another lease of its client (a local handover) keeps that lease's token, so its origin names the
 * thread that took the lock from Redis.
 *
 * <p>The bits are drawn {@value #PER_DRAW} tokens at a time into buffers striped by thread, each token's bytes
 * handed out once. The platform default on Linux (NativePRNG) takes a lock shared by all its instances and reads
 * the kernel's generator for every 32 bytes; a profile of 16 threads acquiring at once put it at 4 % of the
 * client's samples.
 */
public final class Tokens {
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final int BYTES = 12;
    private static final int PER_DRAW = 64;
    private static final int STRIPES = 8;
    /** How much of the client's id a token's origin carries: 36 bits, enough to tell a deployment's clients apart. */
    static final int TAG_CHARS = 6;
    private final SecureRandom random = new SecureRandom();
    private final Stripe[] stripes = new Stripe[STRIPES];
    private final String clientId;
    private final String suffix;

    public Tokens() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe();
        }
        this.clientId = random();
        this.suffix = "." + clientId.substring(0, TAG_CHARS) + ".";
    }

    /** @return the client's id: random, 16 characters; the first {@value #TAG_CHARS} are its tag */
    public String clientId() {
        return clientId;
    }

    /** @return the client's tag, which its tokens carry */
    public String tag() {
        return clientId.substring(0, TAG_CHARS);
    }

    /** @return a new token, marked with the client's tag and the calling thread's id */
    public String next() {
        return random() + suffix + Long.toString(Thread.currentThread().getId(), 36);
    }

    private String random() {
        byte[] bytes = new byte[BYTES];
        stripes[Thread.currentThread().hashCode() & (STRIPES - 1)].take(bytes);
        return ENCODER.encodeToString(bytes);
    }

    /**
     * Who drew a token: the client's tag and the thread's id.
     *
     * @param tag      the first {@value #TAG_CHARS} characters of the client's id
     * @param threadId the id of the thread that asked
     */
    public record Origin(String tag, long threadId) {
        /**
         * Reads the origin of a token, or of a token's origin alone ({@code "<tag>.<thread>"}, as the inspect script
         * answers for waiters).
         *
         * @return the origin; empty for a token without one
         */
        static Optional<Origin> of(String token) {
            int last = token.lastIndexOf('.');
            if (last <= 0) {
                return Optional.empty();
            }
            int first = token.lastIndexOf('.', last - 1);
            String tag = token.substring(first + 1, last);
            try {
                long thread = Long.parseLong(token.substring(last + 1), 36);
                return tag.isEmpty() || thread < 0 ? Optional.empty() : Optional.of(new Origin(tag, thread));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
    }

    private final class Stripe {
        private final byte[] buffer = new byte[BYTES * PER_DRAW];
        /** The next unused byte of {@link #buffer}. Guarded by this stripe. */
        private int position = buffer.length;

        synchronized void take(byte[] into) {
            if (position == buffer.length) {
                random.nextBytes(buffer);
                position = 0;
            }
            System.arraycopy(buffer, position, into, 0, BYTES);
            position += BYTES;
        }
    }
}
