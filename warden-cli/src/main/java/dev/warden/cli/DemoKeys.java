package dev.warden.cli;

import java.util.List;

/** The keys of one demo run, all under the key prefix and a random run id. */
record DemoKeys(String prefix, String run) {
    String lockName() {
        return "demo:" + run;
    }

    String prizes() {
        return prefix + "demo:" + run + ":prizes";
    }

    String inside() {
        return prefix + "demo:" + run + ":inside";
    }

    String lastFence() {
        return prefix + "demo:" + run + ":last-fence";
    }

    String acquisitions() {
        return prefix + "demo:" + run + ":acquisitions";
    }

    String done() {
        return prefix + "demo:" + run + ":done";
    }

    List<String> all() {
        return List.of(prizes(), inside(), lastFence(), acquisitions(), done());
    }
}
