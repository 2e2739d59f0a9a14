package dev.warden.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** A Lua script loaded once from a {@code .lua} resource, with its SHA-1 for {@code EVALSHA}. */
record Script(String name, String source, String sha) {
    static Script load(String name) {
        return load(name, new String[0]);
    }

    /**
     * A script whose source is the {@code preludes} (shared functions, each a {@code .lua} resource of its own)
     * followed by its own resource.
     */
    static Script load(String name, String... preludes) {
        StringBuilder text = new StringBuilder();
        for (String prelude : preludes) {
            text.append(read(prelude)).append('\n');
        }
        String source = text.append(read(name)).toString();
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return new Script(name, source, HexFormat.of().formatHex(digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is unavailable", e);
        }
    }

    private static String read(String name) {
        String resource = name + ".lua";
        try (InputStream in = Script.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script resource " + resource, e);
        }
    }
}
