package dev.warden.internal;

import java.security.SecureRandom;
import java.util.Base64;

/** Owner tokens: 128 bits from {@link SecureRandom}, URL-safe Base64 (22 characters, never a colon). */
final class Tokens {
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private final SecureRandom random = new SecureRandom();

    String next() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return ENCODER.encodeToString(bytes);
    }
}
