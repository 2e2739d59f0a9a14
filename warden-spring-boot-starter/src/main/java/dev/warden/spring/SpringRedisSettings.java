package dev.warden.spring;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Where Spring Boot's {@code spring.data.redis.*} settings point, as a Warden topology: read from the environment
 * by name, so that the starter needs none of Spring Data Redis.
 */
final class SpringRedisSettings {
    private static final String PREFIX = "spring.data.redis.";

    /** A single server or Sentinel URI, or the seeds of a cluster. */
    record Target(String redisUri, List<String> clusterSeeds) {
    }

    private SpringRedisSettings() {
    }

    static Target read(Environment environment) {
        Binder binder = Binder.get(environment);
        List<String> clusterNodes = list(binder, "cluster.nodes");
        String username = string(binder, "username", null);
        String password = string(binder, "password", null);
        boolean ssl = binder.bind(PREFIX + "ssl.enabled", Boolean.class).orElse(false);
        int database = binder.bind(PREFIX + "database", Integer.class).orElse(0);
        String scheme = ssl ? "rediss://" : "redis://";
        if (!clusterNodes.isEmpty()) {
            return new Target(null, clusterNodes.stream()
                    .map(node -> scheme + credentials(username, password) + node).toList());
        }
        String url = string(binder, "url", null);
        if (url != null) {
            return new Target(url, List.of());
        }
        String master = string(binder, "sentinel.master", null);
        List<String> sentinels = list(binder, "sentinel.nodes");
        if (master != null && !sentinels.isEmpty()) {
            return new Target("redis-sentinel://" + credentials(username, password) + String.join(",", sentinels)
                    + "/" + database + "#" + master, List.of());
        }
        String host = string(binder, "host", "localhost");
        int port = binder.bind(PREFIX + "port", Integer.class).orElse(6379);
        return new Target(scheme + credentials(username, password) + host + ":" + port + "/" + database, List.of());
    }

    private static String credentials(String username, String password) {
        if (password == null) {
            return "";
        }
        String user = username == null ? "" : encode(username);
        return user + ":" + encode(password) + "@";
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String string(Binder binder, String name, String fallback) {
        String value = binder.bind(PREFIX + name, String.class).orElse(null);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static List<String> list(Binder binder, String name) {
        return binder.bind(PREFIX + name, Bindable.listOf(String.class)).orElse(List.of());
    }
}
