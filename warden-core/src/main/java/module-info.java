/**
 * Warden: distributed locks on Redis with leases, a watchdog, fencing tokens and loud failures.
 * The API is the package {@code dev.warden}; the engine, in the packages under {@code dev.warden.internal}, is not
 * exported.
 */
module dev.warden.core {
    requires lettuce.core;
    requires io.netty.buffer;
    requires io.netty.common;
    requires io.netty.transport;
    requires reactor.core;
    requires org.slf4j;

    exports dev.warden;
}
