package dev.warden.internal.script;

/** For tests outside this package: the text and SHA of a script as the client sends it, preludes included. */
public final class ScriptSources {
    private ScriptSources() {
    }

    /** @return the source of the script of this name ("release"), as {@code SCRIPT LOAD} takes it */
    public static String source(String name) {
        return script(name).source();
    }

    /** @return the SHA-1 by which the client runs the script of this name */
    public static String sha(String name) {
        return script(name).sha();
    }

    private static Script script(String name) {
        return Scripts.all().stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no script named " + name));
    }
}
