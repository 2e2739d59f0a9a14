/**
 * Starts and controls real {@code redis-server} processes on loopback ports: the harness behind Warden's tests,
 * its demo and its benchmarks.
 */
module dev.warden.redisserver {
    // Only RedisServerExtension needs it, and only a JUnit test uses that.
    requires static org.junit.jupiter.api;

    exports dev.warden.redisserver;
}
