package dev.warden.internal.script;

import java.util.List;

/**
 * One quiet waiter in a batched refresh ({@code refresh.lua}): what its own try would renew. Encoded for the scripts
 * only by {@link Scripts}.
 *
 * @param token       the waiter's token
 * @param leftMillis  the ms left of its wait, or -1 for no limit
 * @param grantMillis the lease a grant to it sets, until its holder renews it
 * @param arm         the number of the try this renewal counts as, which a grant names
 */
public record QuietRenewal(String token, long leftMillis, long grantMillis, int arm) {
    /** @return the arguments {@code refresh.lua} takes per waiter: token, ms left, grant ms, arm */
    List<String> arguments() {
        return List.of(token, Long.toString(leftMillis), Long.toString(grantMillis), Integer.toString(arm));
    }
}
