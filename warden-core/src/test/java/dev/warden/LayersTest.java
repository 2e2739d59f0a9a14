package dev.warden;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.library.Architectures;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The engine's layers ({@code docs/design.md}, "Layout"): each package of {@code dev.warden.internal} depends only on
 * the packages below it, so that a reader can take them in order, and only {@code dev.warden} is exported.
 */
class LayersTest {
    private static final String INTERNAL = "dev.warden.internal";
    /** Lowest first; a layer may use any layer before it. {@code lock} and {@code share} sit side by side. */
    private static final List<List<String>> LAYERS = List.of(List.of("base"), List.of("wire"), List.of("script"),
            List.of("wait"), List.of("inspect"), List.of("lease"), List.of("lock", "share"), List.of("multi"),
            List.of("quorum"), List.of("lead"), List.of("client"));

    @Test
    void everyInternalDependencyRunsDownTheLayers() {
        JavaClasses engine = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(INTERNAL);
        EvaluationResult result = layers().evaluate(engine);
        assertThat(result.getFailureReport().getDetails()).isEmpty();
    }

    @Test
    void everyInternalClassIsInALayer() {
        JavaClasses engine = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(INTERNAL);
        Set<String> known = LAYERS.stream().flatMap(List::stream).map(name -> INTERNAL + "." + name)
                .collect(Collectors.toSet());
        assertThat(engine.stream().map(JavaClass::getPackageName).filter(name -> !known.contains(name)))
                .isEmpty();
        assertThat(engine.size()).isGreaterThan(60);
    }

    /** The check itself: a class of the wire layer that names a lock is reported. */
    @Test
    void aDependencyRunningUpIsReported() throws ClassNotFoundException {
        JavaClasses withUpward = new ClassFileImporter().importClasses(
                Class.forName(INTERNAL + ".wire.UpwardDependency"), Class.forName(INTERNAL + ".lock.RedisLock"));
        EvaluationResult result = layers().evaluate(withUpward);
        assertThat(result.hasViolation()).isTrue();
        assertThat(String.join("\n", result.getFailureReport().getDetails()))
                .contains("UpwardDependency").contains("RedisLock");
    }

    @Test
    void onlyTheApiIsExported() throws IOException, URISyntaxException {
        Path classes = Path.of(LockClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
            ModuleDescriptor module = ModuleDescriptor.read(in);
            assertThat(module.exports()).extracting(ModuleDescriptor.Exports::source).containsExactly("dev.warden");
        }
    }

    private static Architectures.LayeredArchitecture layers() {
        Architectures.LayeredArchitecture layers = Architectures.layeredArchitecture()
                .consideringOnlyDependenciesInLayers();
        for (List<String> level : LAYERS) {
            for (String name : level) {
                layers = layers.layer(name).definedBy(INTERNAL + "." + name + "..");
            }
        }
        for (int i = 0; i < LAYERS.size(); i++) {
            List<String> above = LAYERS.subList(i + 1, LAYERS.size()).stream().flatMap(List::stream).toList();
            for (String name : LAYERS.get(i)) {
                layers = above.isEmpty() ? layers.whereLayer(name).mayNotBeAccessedByAnyLayer()
                        : layers.whereLayer(name).mayOnlyBeAccessedByLayers(above.toArray(String[]::new));
            }
        }
        return layers;
    }
}
