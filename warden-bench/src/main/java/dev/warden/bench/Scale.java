package dev.warden.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The scale scenarios of issue #27, run only when named ({@code --scale S8}), once per contender (Warden and
 * Redisson) and size: each at the fractions of its full size that {@code --scale-sizes} lists (1 by default; {@code
 * 0.1,0.3,1} draws the curve the README shows). S7 ({@link ManyWaiters}) blocks {@code --s7-waiters} waiters
 * (10,000) on {@code --s7-locks} locks (10) held {@code --s7-hold} seconds (10); S8 holds {@code --s8-locks} locks
 * (1,000,000) with the watchdog's 30 s lease for one renewal period.
 */
final class Scale {
    private Scale() {
    }

    /** @return what the scale scenario measures, for the table */
    static String description(String scenario) {
        return switch (scenario) {
            case "S7" -> "many waiters blocked in acquire on a few held locks, then handed the locks one by one";
            case "S8" -> "many locks held by one client with the watchdog, for one renewal period (30 s lease)";
            default -> throw unknown(scenario);
        };
    }

    /** @return the sizes to run the scenario at: {@code --scale-sizes} fractions of its full size */
    static List<Integer> sizes(String scenario, Map<String, String> options) {
        int full = switch (scenario) {
            case "S7" -> Integer.parseInt(options.getOrDefault("s7-waiters", "10000"));
            case "S8" -> Integer.parseInt(options.getOrDefault("s8-locks", "1000000"));
            default -> throw unknown(scenario);
        };
        List<Integer> sizes = new ArrayList<>();
        for (String fraction : options.getOrDefault("scale-sizes", "1").split(",")) {
            double value = Double.parseDouble(fraction);
            if (!(value > 0 && value <= 1)) {
                throw new IllegalArgumentException("scale-sizes must be fractions in (0, 1]: " + fraction);
            }
            sizes.add((int) Math.max(1, Math.round(full * value)));
        }
        return sizes;
    }

    /** @return the figures of one contender at one size, as the options set them */
    static Map<String, Double> run(String scenario, String contender, String uri, int size,
                                   Map<String, String> options) throws Exception {
        if (scenario.equals("S7")) {
            int locks = Integer.parseInt(options.getOrDefault("s7-locks", "10"));
            double seconds = Double.parseDouble(options.getOrDefault("s7-hold", "10"));
            return ManyWaiters.run(contender, uri, Math.max(size, locks), locks,
                    Duration.ofMillis((long) (seconds * 1000)));
        }
        return run(scenario, contender, uri, size, Duration.ofSeconds(30));
    }

    /** @return the figures of one contender at one size of S8, {@code lease} being the watchdog's lease */
    static Map<String, Double> run(String scenario, String contender, String uri, int size, Duration lease)
            throws Exception {
        return switch (scenario) {
            case "S8" -> Resources.manyLocks(contender, uri, size, lease);
            default -> throw unknown(scenario);
        };
    }

    /** @return the key a result is kept under: the scenario and its size */
    static String key(String scenario, int size) {
        return String.format(Locale.ROOT, "%s at %,d", scenario, size);
    }

    private static IllegalArgumentException unknown(String scenario) {
        return new IllegalArgumentException("no scale scenario " + scenario + "; there are S7 and S8");
    }
}
