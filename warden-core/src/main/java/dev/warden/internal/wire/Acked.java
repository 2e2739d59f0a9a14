package dev.warden.internal.wire;

/** A script's reply with how many replicas acknowledged its writes. */
public record Acked<T>(T reply, long acks) {
}
