package dev.warden.cli.doctor;

import java.time.Duration;
import java.util.Optional;

/**
 * What {@code warden doctor} was asked to check against.
 *
 * @param target         the server, for display (passwords masked)
 * @param sentinelMaster the master's name when the URI is {@code redis-sentinel://}
 * @param prefix         the key prefix the clients use
 * @param timeout        the command timeout the clients use
 * @param durability     what the user needs of locks across a Redis restart
 * @param replicaAcks    the replica acknowledgements the clients require
 * @param maxClockOffset the largest clock offset that is OK
 * @param samples        how many PING and TIME round trips to measure
 */
public record DoctorOptions(String target, Optional<String> sentinelMaster, String prefix, Duration timeout,
                     Durability durability, int replicaAcks, Duration maxClockOffset, int samples) {
}
