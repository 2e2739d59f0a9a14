package dev.warden.internal.script;

import java.util.List;

/**
 * A waiter's registration in a lock's queue, made for it by a release of its client (fair mode's riders): what its
 * own first try would register. Encoded for the scripts only by {@link Scripts}.
 *
 * @param token       the waiter's token
 * @param arm         the number of the try this registration counts as, which a grant names
 * @param grantMillis the lease a grant to it sets, until its holder renews it
 */
public record Registration(String token, int arm, long grantMillis) {
    /** @return the arguments {@code queue.lua}'s registration takes per waiter: token, arm, grant ms */
    List<String> arguments() {
        return List.of(token, Integer.toString(arm), Long.toString(grantMillis));
    }
}
