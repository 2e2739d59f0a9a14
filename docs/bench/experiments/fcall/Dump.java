package dev.warden.internal.script;

import java.nio.file.Files;
import java.nio.file.Path;

/** Writes the scripts' sources as Redis gets them, for the FCALL experiment: {@code Dump DIR NAME...}. */
public final class Dump {
    public static void main(String[] args) throws Exception {
        for (int i = 1; i < args.length; i++) {
            Script s = Script.load(args[i], Scripts.LOCK, Scripts.QUEUE, "share");
            Files.writeString(Path.of(args[0], args[i]), s.source());
        }
    }
}
