package dev.warden.internal.inspect;

import dev.warden.internal.script.LockKeys;
import java.util.List;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The glob over lock names, its SCAN MATCH pattern over keys, and keys read back into names. */
class NamePatternTest {

    @Test
    void theGlobMatchesWholeNames() {
        NamePattern orders = NamePattern.compile("orders:*:?");
        assertThat(orders.matches("orders:eu:1")).isTrue();
        assertThat(orders.matches("orders::1")).isTrue();
        assertThat(orders.matches("orders:eu:12")).isFalse();
        assertThat(orders.matches("xorders:eu:1")).isFalse();
        assertThat(NamePattern.compile("*").matches("anything {at} all\n")).isTrue();
        assertThat(NamePattern.compile("a*b*c").matches("aXbYbZc")).isTrue();
        assertThat(NamePattern.compile("a*b*c").matches("aXbYbZ")).isFalse();
        assertThat(NamePattern.compile("[a-c]x").matches("bx")).isTrue();
        assertThat(NamePattern.compile("[c-a]x").matches("bx")).as("a range either way round").isTrue();
        assertThat(NamePattern.compile("[^a-c]x").matches("bx")).isFalse();
        assertThat(NamePattern.compile("[^a-c]x").matches("dx")).isTrue();
        assertThat(NamePattern.compile("[\\]]").matches("]")).isTrue();
        assertThat(NamePattern.compile("[a-]").matches("-")).isTrue();
        assertThat(NamePattern.compile("\\*\\?\\[").matches("*?[")).isTrue();
        assertThat(NamePattern.compile("\\*").matches("x")).isFalse();
        assertThat(NamePattern.compile("?").matches("✓")).as("one character, not one char of UTF-16").isTrue();
        assertThat(NamePattern.compile("?").matches("\uD83D\uDE00")).isTrue();
        assertThat(NamePattern.compile("{*}").matches("{x}")).isTrue();
    }

    @Test
    void aLongNameAgainstManyStarsTakesTimeInProportionNotExponentially() {
        String name = "a".repeat(512);
        NamePattern stars = NamePattern.compile("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b");
        long start = System.nanoTime();
        assertThat(stars.matches(name)).isFalse();
        assertThat(System.nanoTime() - start).isLessThan(1_000_000_000L);
    }

    @Test
    void aMalformedGlobIsRefused() {
        for (String bad : List.of("", "[abc", "x\\", "[]", "[^]")) {
            assertThatThrownBy(() -> NamePattern.compile(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> NamePattern.compile("x".repeat(NamePattern.MAX_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NamePattern.compile(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void theKeyPatternEscapesNamesAsKeysDoAndLetsThroughEveryKeyOfAMatchingName() {
        assertThat(NamePattern.compile("*").keyPattern("warden:")).isEqualTo("warden:{*}");
        assertThat(NamePattern.compile("orders:*").keyPattern("warden:")).isEqualTo("warden:{orders:*}");
        // A brace or percent sign stands as in the key; one wildcard of any kind is a * over key characters.
        assertThat(NamePattern.compile("job-{7}?").keyPattern("w:")).isEqualTo("w:{job-%7B7%7D*}");
        assertThat(NamePattern.compile("a?*[bc]%").keyPattern("w:")).isEqualTo("w:{a*%25}");
        // Redis's glob characters in the prefix and in plain characters are escaped.
        assertThat(NamePattern.compile("x\\*y").keyPattern("p*[")).isEqualTo("p\\*\\[{x\\*y}");
    }

    @Test
    void keysAreReadBackIntoTheNamesOfTheirTags() {
        assertThat(LockKeys.parse("warden:", "warden:{orders:42}")).isEqualTo(new LockKeys.Parsed("orders:42", ""));
        assertThat(LockKeys.parse("warden:", "warden:{orders:42}:q")).isEqualTo(
                new LockKeys.Parsed("orders:42", ":q"));
        assertThat(LockKeys.parse("warden:", "warden:{orders:42}").suffix()).isEmpty();
        assertThat(LockKeys.parse("warden:", "warden:{orders:42}:rw").suffix()).isEqualTo(":rw");
        for (String name : List.of("job-{7}", "50%", "%7B", "}{", "plain")) {
            LockKeys keys = LockKeys.of("w:", name);
            assertThat(LockKeys.parse("w:", keys.lock())).isEqualTo(new LockKeys.Parsed(name, ""));
            assertThat(LockKeys.parse("w:", keys.queue()).name()).isEqualTo(name);
        }
        for (String key : List.of("other:{x}", "w:x", "w:{}", "w:{x", "w:{bad%}", "w:{%7b}", "w:{%7B}x{")) {
            LockKeys.Parsed parsed = LockKeys.parse("w:", key);
            assertThat(parsed == null || !parsed.suffix().isEmpty()).as(key).isTrue();
        }
        // "a%7B" is the escape of "a{"; the name "a%7B" itself escapes to "a%257B".
        assertThat(LockKeys.parse("w:", "w:{a%7B}")).isEqualTo(new LockKeys.Parsed("a{", ""));
        assertThat(LockKeys.parse("w:", "w:{a%257B}")).isEqualTo(new LockKeys.Parsed("a%7B", ""));
    }
}
