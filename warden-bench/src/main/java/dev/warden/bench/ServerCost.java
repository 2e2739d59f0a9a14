package dev.warden.bench;

import dev.warden.redisserver.Resp;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;

/**
 * What Redis spent serving a measured window: the CPU time of its main thread, which runs every command and so
 * bounds what one server serves, and the commands it ran, those that scripts run inside it included. Both are read
 * from {@code INFO} before and after the window, on one connection opened before it, so that neither the
 * connection nor the reading costs the window more than the {@code INFO} calls themselves.
 *
 * <p>The CPU is {@code used_cpu_sys_main_thread} plus {@code used_cpu_user_main_thread} where the server reports
 * them (Redis 6.2 and later do), and {@code used_cpu_sys} plus {@code used_cpu_user}, the whole process, where it
 * does not. The commands are the sum of the {@code calls} of {@code INFO commandstats}, less the bench's own
 * {@code INFO}s: an {@code EVALSHA} whose script calls {@code GET} and {@code DEL} counts three.
 */
final class ServerCost implements AutoCloseable {
    private final Resp resp;

    private ServerCost(Resp resp) {
        this.resp = resp;
    }

    /** Opens a connection of its own to the server at {@code uri}, for {@link #read()}s. */
    static ServerCost open(String uri) throws IOException {
        URI parsed = URI.create(uri);
        return new ServerCost(new Resp(parsed.getHost(), parsed.getPort(), Duration.ofSeconds(30)));
    }

    /**
     * Redis's counters at one moment.
     *
     * @param cpuSeconds the main thread's CPU ({@link #cpuSeconds})
     * @param commands   the commands run, a script's own calls included, {@code INFO} excepted
     * @param pexpires   the {@code PEXPIRE} and {@code PEXPIREAT} calls among them: one per lease renewal
     *                   performed, for both contenders that S5 measures (Warden's {@code renew.lua}, which sets the
     *                   instant a lease ends, Redisson's renewal script, which sets its length)
     */
    record Reading(double cpuSeconds, long commands, long pexpires) {
        /** @return the CPU in microseconds and the commands from {@code before} to this reading, per {@code ops} */
        Cost since(Reading before, double ops) {
            return new Cost((cpuSeconds - before.cpuSeconds) * 1e6 / ops, (commands - before.commands) / ops);
        }
    }

    /**
     * What one operation cost Redis.
     *
     * @param cpuMicros the main thread's CPU time, in microseconds
     * @param commands  the commands run, a script's own calls included
     */
    record Cost(double cpuMicros, double commands) {
        /** @return the operations per second one Redis core serves at this cost: 10^6 / {@link #cpuMicros} */
        double capacity() {
            return capacity(cpuMicros);
        }

        static double capacity(double cpuMicros) {
            return cpuMicros > 0 ? 1e6 / cpuMicros : Double.NaN;
        }
    }

    /** @return the server's counters now */
    Reading read() throws IOException {
        double cpu = cpuSeconds((String) resp.call("INFO", "cpu"));
        String stats = (String) resp.call("INFO", "commandstats");
        return new Reading(cpu, commands(stats), calls(stats, "pexpire") + calls(stats, "pexpireat"));
    }

    /**
     * @param info the reply to {@code INFO cpu}
     * @return the main thread's CPU seconds, user and system, or the whole process's where the main thread's are
     *         not reported
     * @throws IllegalStateException if neither pair is there
     */
    static double cpuSeconds(String info) {
        double main = sum(info, "used_cpu_sys_main_thread:", "used_cpu_user_main_thread:");
        if (!Double.isNaN(main)) {
            return main;
        }
        double process = sum(info, "used_cpu_sys:", "used_cpu_user:");
        if (Double.isNaN(process)) {
            throw new IllegalStateException("no used_cpu_sys and used_cpu_user in INFO cpu: " + info);
        }
        return process;
    }

    /** @return the two fields' sum, or NaN unless both are there */
    private static double sum(String info, String first, String second) {
        double seconds = 0;
        int found = 0;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(first) || line.startsWith(second)) {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).strip());
                found++;
            }
        }
        return found == 2 ? seconds : Double.NaN;
    }

    /**
     * @param info the reply to {@code INFO commandstats}
     * @return the calls of every command but {@code INFO}, which only the bench sends
     */
    static long commands(String info) {
        long calls = 0;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
                int from = line.indexOf("calls=") + "calls=".length();
                int to = line.indexOf(',', from);
                calls += Long.parseLong(line.substring(from, to < 0 ? line.length() : to));
            }
        }
        return calls;
    }

    /**
     * @param info    the reply to {@code INFO commandstats}
     * @param command a command's name, lower case
     * @return its calls, 0 if it has not run
     */
    static long calls(String info, String command) {
        String prefix = "cmdstat_" + command + ":calls=";
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(prefix)) {
                int to = line.indexOf(',', prefix.length());
                return Long.parseLong(line.substring(prefix.length(), to < 0 ? line.length() : to));
            }
        }
        return 0;
    }

    @Override
    public void close() throws IOException {
        resp.close();
    }
}
