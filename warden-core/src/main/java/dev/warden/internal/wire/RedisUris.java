package dev.warden.internal.wire;

import dev.warden.internal.base.Require;
import io.lettuce.core.RedisURI;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses Redis URIs and masks their passwords for messages. Internal; not part of the API. */
public final class RedisUris {
    /** The user information of a URI: anything before an '@' that comes before the first '/' after the scheme. */
    private static final java.util.regex.Pattern CREDENTIALS = java.util.regex.Pattern.compile("^[a-z-]+://([^/@]*)@");

    private static final Pattern USER_INFO = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]*://)([^@/]*)@");

    private RedisUris() {
    }

    /**
     * Parses a {@code redis://}, {@code rediss://}, {@code redis-sentinel://} or {@code rediss-sentinel://} URI (the
     * last: TLS to the sentinels and to the master they name).
     *
     * @param uri the URI
     * @return the parsed URI
     * @throws NullPointerException     if {@code uri} is null
     * @throws IllegalArgumentException if it is malformed or of another scheme; the message masks any password
     */
    public static RedisURI parse(String uri) {
        Objects.requireNonNull(uri, "redisUri");
        String scheme = uri.contains("://") ? uri.substring(0, uri.indexOf("://")) : "";
        Require.argument(scheme.equals("redis") || scheme.equals("rediss") || scheme.equals("redis-sentinel")
                        || scheme.equals("rediss-sentinel"),
                "redisUri must start with redis://, rediss://, redis-sentinel:// or rediss-sentinel://: %s", mask(uri));
        if (scheme.equals("redis-sentinel") || scheme.equals("rediss-sentinel")) {
            return parseSentinel(uri);
        }
        RedisURI parsed;
        try {
            // java.net.URI rejects a malformed authority (such as a port that is not a number) that Lettuce
            // would take for part of the host name.
            Require.argument(new URI(uri).getHost() != null, "redisUri has no valid host and port: %s", mask(uri));
            parsed = RedisURI.create(uri);
        } catch (URISyntaxException | RuntimeException e) {
            if (e instanceof IllegalArgumentException && e.getMessage().startsWith("redisUri")) {
                throw (IllegalArgumentException) e;
            }
            throw new IllegalArgumentException("redisUri is not a valid Redis URI: " + mask(uri), null);
        }
        return parsed;
    }

    private static RedisURI parseSentinel(String uri) {
        RedisURI parsed;
        try {
            parsed = RedisURI.create(uri);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("redisUri is not a valid Sentinel URI: " + mask(uri), null);
        }
        Require.argument(!parsed.getSentinels().isEmpty() && parsed.getSentinelMasterId() != null
                        && !parsed.getSentinelMasterId().isBlank(),
                "redisUri of Sentinel needs hosts and #masterName: %s", mask(uri));
        return parsed;
    }

    /**
     * Replaces the password of a URI's user info with {@code ***} (the whole user info when it has no colon, since
     * Redis URIs then read it as a password).
     *
     * @param uri the URI
     * @return the URI safe to show
     */
    /**
     * Authenticates with a password given apart from the URI ({@link dev.warden.LockConfig.Builder#password}): as the
     * URI's user where it names one alone ({@code scheme://user@host}), as the default user where it names none. A
     * URI with {@code user:password@} keeps its own.
     *
     * @param text     the URI as configured
     * @param uri      the URI parsed
     * @param password the password
     */
    public static void authenticate(String text, RedisURI uri, char[] password) {
        java.util.regex.Matcher credentials = CREDENTIALS.matcher(text);
        if (!credentials.find()) {
            uri.setAuthentication(password);
        } else if (credentials.group(1).indexOf(':') < 0) {
            uri.setAuthentication(java.net.URLDecoder.decode(credentials.group(1),
                    java.nio.charset.StandardCharsets.UTF_8), password);
        }
    }

    public static String mask(String uri) {
        if (uri == null) {
            return null;
        }
        Matcher m = USER_INFO.matcher(uri);
        if (!m.find()) {
            return uri;
        }
        String info = m.group(2);
        int colon = info.indexOf(':');
        String masked = colon >= 0 ? info.substring(0, colon) + ":***" : "***";
        return m.group(1) + masked + "@" + uri.substring(m.end());
    }
}
