package dev.warden.internal;

import java.security.SecureRandom;
import java.util.Base64;

/**
 * Owner tokens: 128 bits from {@link SecureRandom}, URL-safe Base64 (22 characters, never a colon), drawn for every
 * acquisition. A lease that takes the lock over from another lease of its client (a local handover) keeps that
 * lease's token instead.
 *
 * <p>The bits are drawn {@value #PER_DRAW} tokens at a time into buffers striped by thread, each token's bytes
 * handed out once. The platform default on Linux (NativePRNG) takes a lock shared by all its instances and reads
 * the kernel's generator for every 32 bytes; a profile of 16 threads acquiring at once put it at 4 % of the
 * client's samples.
 */
final class Tokens {
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final int BYTES = 16;
    private static final int PER_DRAW = 64;
    private static final int STRIPES = 8;
    private final SecureRandom random = new SecureRandom();
    private final Stripe[] stripes = new Stripe[STRIPES];

    Tokens() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe();
        }
    }

    String next() {
        byte[] bytes = new byte[BYTES];
        stripes[Thread.currentThread().hashCode() & (STRIPES - 1)].take(bytes);
        return ENCODER.encodeToString(bytes);
    }

    private final class Stripe {
        private final byte[] buffer = new byte[BYTES * PER_DRAW];
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
