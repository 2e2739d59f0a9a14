package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.warden.redisserver.RedisServer;
import dev.warden.redisserver.Resp;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What Redis spends, read from its INFO: the main thread's CPU where the server reports it, the whole process's
 * where it does not, and the commands it ran, those of a script counted one by one.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ServerCostTest {

    @Test
    void aScriptsCommandsAreCountedAndTheBenchsInfoIsNot() throws Exception {
        try (RedisServer server = RedisServer.start(); ServerCost cost = ServerCost.open(server.uri())) {
            URI uri = URI.create(server.uri());
            try (Resp client = new Resp(uri.getHost(), uri.getPort(), Duration.ofSeconds(10))) {
                ServerCost.Reading before = cost.read();
                // The floor's pair: SET NX PX, then a compare-and-delete script that calls GET and DEL.
                for (int i = 0; i < 500; i++) {
                    assertThat(client.call("SET", "k", "t", "NX", "PX", "30000")).isEqualTo("OK");
                    assertThat(client.call("EVAL", "if redis.call('GET', KEYS[1]) == ARGV[1] then "
                            + "return redis.call('DEL', KEYS[1]) end return 0", "1", "k", "t")).isEqualTo(1L);
                }
                ServerCost.Cost perPair = cost.read().since(before, 500);
                assertThat(perPair.commands()).isEqualTo(4.0);
                // 1,000 requests cost a single-threaded server some CPU, and well under a millisecond each.
                assertThat(perPair.cpuMicros()).isPositive().isLessThan(1000);
                assertThat(perPair.capacity()).isCloseTo(1e6 / perPair.cpuMicros(), within(1e-6));
            }
        }
    }

    @Test
    void theMainThreadsCpuIsPreferredAndTheProcesssIsTheFallback() {
        String redis7 = "# CPU\r\nused_cpu_sys:2.500000\r\nused_cpu_user:1.250000\r\nused_cpu_sys_children:0.0\r\n"
                + "used_cpu_user_children:0.0\r\nused_cpu_sys_main_thread:2.000000\r\n"
                + "used_cpu_user_main_thread:1.000000\r\n";
        assertThat(ServerCost.cpuSeconds(redis7)).isEqualTo(3.0);
        String redis5 = "# CPU\r\nused_cpu_sys:2.500000\r\nused_cpu_user:1.250000\r\nused_cpu_sys_children:0.0\r\n"
                + "used_cpu_user_children:0.0\r\n";
        assertThat(ServerCost.cpuSeconds(redis5)).isEqualTo(3.75);
        assertThatThrownBy(() -> ServerCost.cpuSeconds("# CPU\r\n")).isInstanceOf(IllegalStateException.class);
        assertThat(ServerCost.commands("# Commandstats\r\ncmdstat_set:calls=3,usec=9,usec_per_call=3.00,"
                + "rejected_calls=0,failed_calls=0\r\ncmdstat_info:calls=7,usec=1\r\ncmdstat_client|setname:calls=2,"
                + "usec=1\r\n")).isEqualTo(5);
        String stats = "# Commandstats\r\ncmdstat_pexpireat:calls=9,usec=9\r\ncmdstat_pexpire:calls=4,usec=8,"
                + "usec_per_call=2.00\r\ncmdstat_expire:calls=1,usec=1\r\n";
        assertThat(ServerCost.calls(stats, "pexpire")).isEqualTo(4);
        assertThat(ServerCost.calls(stats, "expire")).isEqualTo(1);
        assertThat(ServerCost.calls(stats, "hexists")).isZero();
    }
}
