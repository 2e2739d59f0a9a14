/**
 * Starts and controls real {@code redis-server} processes on loopback ports: the harness behind Warden's tests,
 * its demo and its benchmarks.
 */
module dev.warden.redisserver {
    exports dev.warden.redisserver;
}
