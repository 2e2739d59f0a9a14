package dev.warden.internal.inspect;

import dev.warden.internal.script.LockKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A glob over lock names, as {@link dev.warden.LockClient#locks(String, int)} takes it: {@code *} any run of
 * characters, {@code ?} one character, {@code [abc]}, {@code [a-z]} and {@code [^abc]} one character of (or not of)
 * a set, and {@code \} makes the next character plain. It matches names as the application gives them, braces and
 * percent signs included; their escaping in keys ({@link LockKeys#escape}) is this class's business: it turns the
 * glob into a {@code SCAN MATCH} pattern over lock keys that lets through every key of a matching name (and maybe
 * more, since {@code ?} and a set become {@code *} there, an escaped character being three in the key), and then
 * matches each name read back exactly, in time proportional to the name's length times the glob's.
 */
public final class NamePattern {
    /** The longest glob accepted, in characters. */
    static final int MAX_LENGTH = 4096;

    private final String glob;
    /** The glob's tokens, each matching one character but {@link #ANY}. */
    private final Token[] tokens;
    private final boolean all;

    private NamePattern(String glob, Token[] tokens) {
        this.glob = glob;
        this.tokens = tokens;
        this.all = tokens.length == 1 && tokens[0] == ANY;
    }

    /** One part of a glob. */
    private interface Token {
        /** @return whether this token matches the character (code point) {@code c} */
        boolean matches(int c);
    }

    /** The wildcards. */
    private enum Wild implements Token {
        /** {@code *}: any run of characters (the matcher treats it apart). */
        ANY,
        /** {@code ?}: any one character. */
        ONE;

        @Override
        public boolean matches(int c) {
            return true;
        }
    }

    private static final Token ANY = Wild.ANY;
    private static final Token ONE = Wild.ONE;

    /** A plain character. */
    private record Literal(int c) implements Token {
        @Override
        public boolean matches(int other) {
            return other == c;
        }
    }

    /** {@code [...]}: one character within (or, negated, outside) the ranges, each a pair of bounds. */
    private record Set(boolean negated, int[] ranges) implements Token {
        @Override
        public boolean matches(int c) {
            boolean in = false;
            for (int i = 0; i < ranges.length && !in; i += 2) {
                in = c >= ranges[i] && c <= ranges[i + 1];
            }
            return in != negated;
        }
    }

    /**
     * Reads a glob.
     *
     * @throws NullPointerException     if {@code glob} is null
     * @throws IllegalArgumentException if it is empty, longer than {@link #MAX_LENGTH}, ends in a lone {@code \},
     *                                  or has a {@code [} without its {@code ]} or an empty set
     */
    static NamePattern compile(String glob) {
        Objects.requireNonNull(glob, "pattern");
        if (glob.isEmpty() || glob.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("pattern must have 1 to " + MAX_LENGTH + " characters, has "
                    + glob.length());
        }
        int[] chars = glob.codePoints().toArray();
        List<Token> tokens = new ArrayList<>();
        for (int i = 0; i < chars.length; i++) {
            int c = chars[i];
            if (c == '*') {
                if (tokens.isEmpty() || tokens.get(tokens.size() - 1) != ANY) {
                    tokens.add(ANY);
                }
            } else if (c == '?') {
                tokens.add(ONE);
            } else if (c == '\\') {
                if (++i == chars.length) {
                    throw invalid(glob, "it ends in a lone \\");
                }
                tokens.add(new Literal(chars[i]));
            } else if (c == '[') {
                i = set(glob, chars, i + 1, tokens);
            } else {
                tokens.add(new Literal(c));
            }
        }
        return new NamePattern(glob, tokens.toArray(Token[]::new));
    }

    /** Reads a set from just after its {@code [}; returns the index of its {@code ]}. */
    private static int set(String glob, int[] chars, int start, List<Token> tokens) {
        int i = start;
        boolean negated = i < chars.length && chars[i] == '^';
        if (negated) {
            i++;
        }
        List<Integer> ranges = new ArrayList<>();
        for (; i < chars.length && chars[i] != ']'; i++) {
            int low = chars[i];
            if (low == '\\' && i + 1 < chars.length) {
                low = chars[++i];
            }
            int high = low;
            if (i + 2 < chars.length && chars[i + 1] == '-' && chars[i + 2] != ']') {
                i += 2;
                high = chars[i];
                if (high == '\\' && i + 1 < chars.length) {
                    high = chars[++i];
                }
            }
            ranges.add(Math.min(low, high));
            ranges.add(Math.max(low, high));
        }
        if (i == chars.length) {
            throw invalid(glob, "a [ has no ]");
        }
        if (ranges.isEmpty()) {
            throw invalid(glob, "a set [] is empty");
        }
        tokens.add(new Set(negated, ranges.stream().mapToInt(Integer::intValue).toArray()));
        return i;
    }

    private static IllegalArgumentException invalid(String glob, String why) {
        return new IllegalArgumentException("pattern '" + glob + "' is not a glob: " + why);
    }

    /** @return the glob as given */
    String glob() {
        return glob;
    }

    /** @return whether this glob matches the name */
    boolean matches(String name) {
        if (all) {
            return true;
        }
        int[] chars = name.codePoints().toArray();
        int t = 0;
        int n = 0;
        int star = -1;
        int resume = 0;
        // The classic matcher for globs of one-character tokens: on a mismatch, let the last * take one more
        // character and go on from there. Each * restarts at most once per character of the name.
        while (n < chars.length) {
            if (t < tokens.length && tokens[t] == ANY) {
                star = t++;
                resume = n;
            } else if (t < tokens.length && tokens[t].matches(chars[n])) {
                t++;
                n++;
            } else if (star >= 0) {
                t = star + 1;
                n = ++resume;
            } else {
                return false;
            }
        }
        while (t < tokens.length && tokens[t] == ANY) {
            t++;
        }
        return t == tokens.length;
    }

    /**
     * The {@code SCAN MATCH} pattern for the lock keys of matching names under {@code prefix}: the prefix and every
     * plain character written as in the key, with Redis's glob characters escaped; every other token a {@code *}.
     * The key must end with the tag's closing brace: the lock key of a mutex.
     */
    String keyPattern(String prefix) {
        StringBuilder out = new StringBuilder(prefix.length() + glob.length() + 8);
        appendPlain(out, prefix);
        out.append('{');
        boolean star = false;
        for (Token token : tokens) {
            if (token instanceof Literal literal) {
                appendPlain(out, LockKeys.escape(Character.toString(literal.c())));
                star = false;
            } else if (!star) {
                out.append('*');
                star = true;
            }
        }
        return out.append('}').toString();
    }

    private static void appendPlain(StringBuilder out, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
    }

    @Override
    public String toString() {
        return glob;
    }
}
