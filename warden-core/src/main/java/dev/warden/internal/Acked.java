package dev.warden.internal;

/** A script's reply with how many replicas acknowledged its writes. */
record Acked<T>(T reply, long acks) {
}
