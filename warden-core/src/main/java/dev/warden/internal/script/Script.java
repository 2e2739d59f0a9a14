package dev.warden.internal.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A Lua script loaded once from a {@code .lua} resource, with its SHA-1 for {@code EVALSHA}. */
record Script(String name, String source, String sha) {
    /** A top-level definition: {@code local function f(} or {@code local a, b}. */
    private static final Pattern DEFINITION =
            Pattern.compile("^local (?:function )?(\\w+(?:\\s*,\\s*\\w+)*)", Pattern.MULTILINE);
    private static final Pattern COMMENT = Pattern.compile("--.*$", Pattern.MULTILINE);
    private static final Pattern TRAILING = Pattern.compile("[ \t]+$", Pattern.MULTILINE);
    /** A command call: {@code redis.call('SET'}, or {@code redis.call(ARGV[5]} for a command passed in. */
    private static final Pattern CALL = Pattern.compile("redis\\.p?call\\(\\s*(?:'(\\w+)')?");

    /**
     * A script whose source is the parts of the {@code preludes} (shared Lua, each a {@code .lua} resource of its
     * own) that it uses, followed by its own resource. Redis runs a script's whole source on every call, creating
     * a closure for each function it defines, so a script takes from a prelude only what it names: a prelude is
     * blocks separated by blank lines; a block that defines names ({@code local function f} or {@code local x} at
     * the start of a line) is kept where the script, or a block kept for it, names one; other blocks always.
     */
    static Script load(String name, String... preludes) {
        List<String> blocks = new ArrayList<>();
        for (String prelude : preludes) {
            blocks.addAll(List.of(read(prelude).split("\\n\\s*\\n")));
        }
        String body = read(name);
        boolean[] kept = new boolean[blocks.size()];
        StringBuilder used = new StringBuilder(code(body));
        for (boolean more = true; more; ) {
            more = false;
            for (int i = 0; i < blocks.size(); i++) {
                if (!kept[i] && needed(blocks.get(i), used)) {
                    kept[i] = true;
                    used.append('\n').append(code(blocks.get(i)));
                    more = true;
                }
            }
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < blocks.size(); i++) {
            if (kept[i]) {
                text.append(blocks.get(i).strip()).append("\n\n");
            }
        }
        // Without its comments, which are nearly half of the text: a script that must keep its order is sent whole
        // with every call (Scripts#runInOrder; a settling one until its server holds it), and Redis reads and hashes
        // it each time. Lines stay where they were, for the line numbers in Redis's errors (commandsAt).
        String source = TRAILING.matcher(code(text.append(body).toString())).replaceAll("");
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return new Script(name, source, HexFormat.of().formatHex(digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is unavailable", e);
        }
    }

    /**
     * The commands a line of the source calls: Redis names a script's failing line ({@code @user_script:49}), not
     * the command on it, when an ACL refuses a command inside a script.
     *
     * @param line     the line, counted from 1 as Redis counts it
     * @param passedIn the command of a call that names it by a variable: the scripts pass in only the publish
     * @return the commands, upper case, joined by " or " where the line has more than one; empty if it calls none
     */
    Optional<String> commandsAt(int line, String passedIn) {
        String[] lines = source.split("\n", -1);
        if (line < 1 || line > lines.length) {
            return Optional.empty();
        }
        Matcher call = CALL.matcher(COMMENT.matcher(lines[line - 1]).replaceAll(""));
        List<String> commands = new ArrayList<>();
        while (call.find()) {
            commands.add(call.group(1) == null ? passedIn : call.group(1).toUpperCase(Locale.ROOT));
        }
        return commands.isEmpty() ? Optional.empty() : Optional.of(String.join(" or ", commands));
    }

    /** Whether a prelude's block defines nothing, or something that {@code code} names. */
    private static boolean needed(String block, CharSequence code) {
        Matcher definition = DEFINITION.matcher(block);
        boolean defines = false;
        while (definition.find()) {
            defines = true;
            for (String defined : definition.group(1).split("\\s*,\\s*")) {
                if (Pattern.compile("(?<![\\w.])" + defined + "(?!\\w)").matcher(code).find()) {
                    return true;
                }
            }
        }
        return !defines;
    }

    /** Lua without its comments (none of the scripts has "--" in a string). */
    private static String code(String lua) {
        return COMMENT.matcher(lua).replaceAll("");
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
