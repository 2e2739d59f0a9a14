package dev.warden.internal.script;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TokensTest {
    @Test
    void tokensFromManyThreadsAreAllDistinctAndColonFree() throws InterruptedException {
        Tokens tokens = new Tokens();
        Set<String> seen = ConcurrentHashMap.newKeySet();
        int threads = 8;
        int each = 5_000;
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    String token = tokens.next();
                    assertTrue(token.matches("[A-Za-z0-9_-]{16}\\.[A-Za-z0-9_-]{6}\\.[0-9a-z]+"), token);
                    assertEquals(Optional.of(new Tokens.Origin(tokens.tag(), Thread.currentThread().getId())),
                            Tokens.Origin.of(token));
                    seen.add(token);
                }
            });
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertEquals(threads * each, seen.size());
    }

    @Test
    void marksAreReadFromTokensAndFromOriginsAloneAndNotFromOtherValues() {
        assertEquals(Optional.of(new Tokens.Origin("AbC-_9", 35)), Tokens.Origin.of("AbC-_9.z"));
        assertEquals(Optional.of(new Tokens.Origin("AbC-_9", 36)), Tokens.Origin.of("abcdefghijklmnopqrstuv.AbC-_9.10"));
        assertEquals(Optional.empty(), Tokens.Origin.of("abcdefghijklmnopqrstuv"));
        assertEquals(Optional.empty(), Tokens.Origin.of(".12"));
        assertEquals(Optional.empty(), Tokens.Origin.of("tag.not-a-number"));
        assertEquals(Optional.empty(), Tokens.Origin.of("tag.-5"));
    }
}
