package dev.warden.docs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.warden.LockClient;
import dev.warden.LockConfig;
import dev.warden.redisserver.RedisServerExtension;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * Every {@code ```java} block of README.md, docs/integrations.md and docs/migrating.md compiles, and runs against a real redis-server
 * where it can, so that a snippet that needs a cast, names a method that is gone or throws is caught.
 *
 * <p>Each block is compiled on its own, with the compiler of the JDK, against this module's test class path (every
 * Warden module and integration). How it is compiled and run depends on its shape:
 * <ul>
 *   <li><b>a class</b> (it has {@code import}s or a top-level type): compiled as written; its {@code main}, if it has
 *       one, runs with the test server's URI as its one argument;</li>
 *   <li><b>class members</b> (a method, or a line at the top level that starts with an annotation): put into a
 *       scaffold class that extends {@link DocContext}, which is registered as a bean of a Spring Boot application
 *       with Warden's starter ({@link DocsApplication}); each {@code @Bean} method's bean is then asked of the context
 *       (so it ran), and each other method is called on the bean (through its {@code @Locked} proxy) when its
 *       parameters are ones the test can give ({@link DocContext.Order}, {@code LockClient}); one whose parameters it
 *       cannot give is compiled only;</li>
 *   <li><b>statements</b>: the body of the scaffold's {@code run() throws Exception}, which runs; {@link DocContext}
 *       gives them {@code client}, {@code lock} and the application's own objects they name.</li>
 * </ul>
 * The scaffold imports the Warden packages, the integrations' types and the Spring annotations that snippets use,
 * rewrites {@code LockClient.create(} to {@link DocContext#created} (so that the clients a snippet makes are
 * closed), and every block's {@code redis://localhost:6379} and {@code redis://127.0.0.1:6379} to the test server.
 * A failure names the file and line of the block, and the document's line of each compile error.
 */
class DocSnippetsTest {
    /** The documents whose java blocks are checked, from the module directory, where the build runs the tests. */
    static final List<Path> DOCUMENTS = List.of(Path.of("..", "README.md"), Path.of("..", "docs", "integrations.md"),
            Path.of("..", "docs", "migrating.md"));
    /** How long one block may take to run; each needs a second or two. */
    static final Duration BOUND = Duration.ofSeconds(60);
    /** A fence that opens a java block, as the extraction reads it. */
    static final Pattern JAVA_FENCE = Pattern.compile("```java\\s*");
    /** Any fence that looks like it opens a java block, to catch one that the extraction would miss. */
    static final Pattern JAVA_LIKE_FENCE = Pattern.compile("\\s*(```|~~~)\\s*java\\b.*", Pattern.CASE_INSENSITIVE);
    static final Pattern TYPE_DECLARATION = Pattern.compile("((public|protected|private|abstract|final|static|sealed"
            + "|non-sealed|strictfp)\\s+)*(class|interface|enum|record|@interface)\\s+(\\w+).*");
    static final Pattern METHOD_HEADER = Pattern.compile(
            "(?!(return|throw|new)\\b)[\\w<>\\[\\]?,. ]+\\s+\\w+\\s*\\(.*\\)\\s*(throws\\s+[\\w.,\\s]+)?\\{");
    static final Pattern PACKAGE = Pattern.compile("package\\s+([\\w.]+)\\s*;.*");
    static final String SCAFFOLD_PACKAGE = "docsnippet";
    static final List<String> SCAFFOLD_IMPORTS = List.of(
            "dev.warden.*",
            "dev.warden.integration.*",
            "dev.warden.micrometer.*",
            "dev.warden.shedlock.*",
            "dev.warden.spring.*",
            "io.micrometer.core.instrument.MeterRegistry",
            "io.micrometer.observation.ObservationRegistry",
            "java.time.Duration",
            "java.util.*",
            "java.util.concurrent.*",
            "net.javacrumbs.shedlock.core.LockProvider",
            "org.springframework.context.annotation.Bean",
            "org.springframework.context.event.EventListener",
            "org.springframework.integration.leader.event.OnGrantedEvent",
            "org.springframework.integration.leader.event.OnRevokedEvent",
            "org.springframework.scheduling.annotation.Scheduled",
            "org.springframework.transaction.annotation.Transactional");
    /** What happened to each block, by its place, for the summary. */
    static final Map<String, String> OUTCOMES = new ConcurrentSkipListMap<>();

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    @TempDir
    static Path work;

    @AfterAll
    static void summary() {
        OUTCOMES.forEach((where, outcome) -> System.out.println("DocSnippetsTest: " + where + ": " + outcome));
    }

    /** A java block: where it is, and its lines. */
    record Block(String file, int fenceLine, List<String> code) {
        /** @return the document's line number of the block's line {@code index} (0-based) */
        int lineOf(int index) {
            return fenceLine + 1 + index;
        }

        String where() {
            return file + ":" + fenceLine;
        }
    }

    enum Shape { CLASS, MEMBERS, STATEMENTS }

    /** A compilation unit made for a block, and where the block's first line is in it (1-based). */
    record Source(String className, String text, int firstBlockLine) {
    }

    @Test
    void everyJavaFenceIsExtractedAsABlock() throws IOException {
        for (Path document : DOCUMENTS) {
            List<String> lines = read(document);
            List<Block> blocks = blocks(document);
            assertThat(blocks).as("%s has no java block: has it moved?", document).isNotEmpty();
            List<Integer> looksJava = new ArrayList<>();
            for (int i = 0; i < lines.size(); i++) {
                if (JAVA_LIKE_FENCE.matcher(lines.get(i)).matches()) {
                    looksJava.add(i + 1);
                }
            }
            assertThat(blocks.stream().map(Block::fenceLine).toList())
                    .as("the java fences of %s (lines %s) that the extraction reads; write a block's fence as ```java,"
                            + " at the start of its line", document, looksJava)
                    .isEqualTo(looksJava);
        }
    }

    @TestFactory
    Stream<DynamicTest> everyJavaBlockCompilesAndRunsWhereItCan() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path document : DOCUMENTS) {
            for (Block block : blocks(document)) {
                Shape shape = shapeOf(block.code());
                tests.add(DynamicTest.dynamicTest(block.where() + " (" + shape.name().toLowerCase(Locale.ROOT) + ")",
                        () -> check(block, shape)));
            }
        }
        return tests.stream();
    }

    private void check(Block block, Shape shape) throws Exception {
        REDIS.server().call("FLUSHALL");
        try (LockClient client = LockClient.create(LockConfig.builder().redisUri(REDIS.server().uri())
                .keyPrefix("docs:").build())) {
            DocContext.sharedClient = client;
            compileAndRun(block, shape);
        } finally {
            DocContext.CREATED.forEach(LockClient::close);
            DocContext.CREATED.clear();
            DocContext.sharedClient = null;
        }
    }

    private void compileAndRun(Block block, Shape shape) throws Exception {
        Source source = scaffold(block, shape);
        Path dir = Files.createDirectories(work.resolve(block.file().replaceAll("\\W", "_") + "_" + block.fenceLine()));
        compile(block, source, dir);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.resolve("classes").toUri().toURL()},
                getClass().getClassLoader())) {
            Class<?> type = loader.loadClass(source.className());
            String outcome = switch (shape) {
                case CLASS -> runMain(block, type);
                case STATEMENTS -> runStatements(block, type);
                case MEMBERS -> runMembers(block, type, loader);
            };
            OUTCOMES.put(block.where(), outcome);
        }
    }

    // ----- extraction and shape

    static List<String> read(Path document) throws IOException {
        assertThat(document).as("%s not found (the test runs in the warden-docs-test module directory)",
                document.toAbsolutePath().normalize()).isRegularFile();
        return Files.readString(document).replace("\r\n", "\n").lines().toList();
    }

    static List<Block> blocks(Path document) throws IOException {
        List<String> lines = read(document);
        String name = Path.of("..").relativize(document).toString();
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (JAVA_FENCE.matcher(lines.get(i)).matches()) {
                int close = i + 1;
                while (close < lines.size() && !lines.get(close).startsWith("```")) {
                    close++;
                }
                assertThat(close).as("%s:%d: the java block has no closing ```", name, i + 1).isLessThan(lines.size());
                blocks.add(new Block(name, i + 1, lines.subList(i + 1, close)));
                i = close;
            }
        }
        return blocks;
    }

    /** The block's lines at brace depth 0, without comments, string and character literals. */
    static List<String> topLevelLines(List<String> code) {
        List<String> top = new ArrayList<>();
        int depth = 0;
        boolean inComment = false;
        for (String line : code) {
            StringBuilder kept = new StringBuilder();
            int startDepth = depth;
            for (int i = 0; i < line.length(); i++) {
                char c = line.charAt(i);
                if (inComment) {
                    if (c == '*' && i + 1 < line.length() && line.charAt(i + 1) == '/') {
                        inComment = false;
                        i++;
                    }
                } else if (c == '/' && i + 1 < line.length() && line.charAt(i + 1) == '/') {
                    break;
                } else if (c == '/' && i + 1 < line.length() && line.charAt(i + 1) == '*') {
                    inComment = true;
                    i++;
                } else if (c == '"' || c == '\'') {
                    int end = i + 1;
                    while (end < line.length() && line.charAt(end) != c) {
                        end += line.charAt(end) == '\\' ? 2 : 1;
                    }
                    kept.append(c).append(c);
                    i = end;
                } else {
                    if (c == '{') {
                        depth++;
                    } else if (c == '}') {
                        depth--;
                    }
                    kept.append(c);
                }
            }
            if (startDepth == 0 && !kept.toString().isBlank()) {
                top.add(kept.toString().strip());
            }
        }
        return top;
    }

    static Shape shapeOf(List<String> code) {
        List<String> top = topLevelLines(code);
        if (top.stream().anyMatch(line -> line.startsWith("import ") || PACKAGE.matcher(line).matches()
                || TYPE_DECLARATION.matcher(line).matches())) {
            return Shape.CLASS;
        }
        if (top.stream().anyMatch(line -> line.startsWith("@") || METHOD_HEADER.matcher(line).matches())) {
            return Shape.MEMBERS;
        }
        return Shape.STATEMENTS;
    }

    // ----- scaffold and compilation

    Source scaffold(Block block, Shape shape) {
        List<String> code = block.code().stream().map(this::pointedAtTheTestServer).toList();
        if (shape == Shape.CLASS) {
            String packageName = topLevelLines(code).stream().map(PACKAGE::matcher).filter(m -> m.matches())
                    .map(m -> m.group(1) + ".").findFirst().orElse("");
            List<String> types = topLevelLines(code).stream().map(TYPE_DECLARATION::matcher)
                    .filter(m -> m.matches()).map(m -> m.group(4)).toList();
            String publicType = topLevelLines(code).stream().filter(line -> line.startsWith("public "))
                    .map(TYPE_DECLARATION::matcher).filter(m -> m.matches()).map(m -> m.group(4)).findFirst()
                    .orElse(types.isEmpty() ? "Snippet" : types.get(0));
            return new Source(packageName + publicType, String.join("\n", code) + "\n", 1);
        }
        StringBuilder text = new StringBuilder("package " + SCAFFOLD_PACKAGE + ";\n\n");
        SCAFFOLD_IMPORTS.forEach(imported -> text.append("import ").append(imported).append(";\n"));
        text.append("\npublic class Snippet extends ").append(DocContext.class.getName()).append(" {\n");
        if (shape == Shape.STATEMENTS) {
            text.append("public void run() throws Exception {\n");
        }
        int first = (int) text.chars().filter(c -> c == '\n').count() + 1;
        code.forEach(line -> text.append(line.replace("LockClient.create(", "created(")).append('\n'));
        text.append(shape == Shape.STATEMENTS ? "}\n}\n" : "}\n");
        return new Source(SCAFFOLD_PACKAGE + ".Snippet", text.toString(), first);
    }

    private String pointedAtTheTestServer(String line) {
        String uri = REDIS.server().uri();
        return line.replace("redis://localhost:6379", uri).replace("redis://127.0.0.1:6379", uri);
    }

    static void compile(Block block, Source source, Path dir) throws IOException {
        Path file = dir.resolve("src").resolve(source.className().replace('.', '/') + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source.text());
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac).as("no Java compiler: the tests need a JDK, not a JRE").isNotNull();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, UTF_8)) {
            List<String> options = List.of("-d", classes.toString(), "-classpath",
                    System.getProperty("java.class.path"), "-parameters", "-proc:none", "-encoding", "UTF-8");
            boolean compiled = javac.getTask(null, files, diagnostics, options, null,
                    files.getJavaFileObjects(file)).call();
            if (!compiled) {
                String errors = diagnostics.getDiagnostics().stream()
                        .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                        .map(d -> describe(block, source, d)).collect(Collectors.joining("\n"));
                fail("%s: the java block does not compile%s:\n%s\n--- as compiled:\n%s", block.where(),
                        source.firstBlockLine() == 1 ? "" : " in its scaffold", errors, numbered(source.text()));
            }
        }
    }

    private static String describe(Block block, Source source, Diagnostic<? extends JavaFileObject> d) {
        int index = (int) d.getLineNumber() - source.firstBlockLine();
        String place = index >= 0 && index < block.code().size()
                ? block.file() + ":" + block.lineOf(index) + ": " + block.code().get(index).strip()
                : "scaffold line " + d.getLineNumber();
        return "  " + place + "\n    " + d.getMessage(Locale.ROOT).replace("\n", "\n    ");
    }

    private static String numbered(String text) {
        List<String> lines = text.lines().toList();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            out.append(String.format("%4d  %s%n", i + 1, lines.get(i)));
        }
        return out.toString();
    }

    // ----- running

    private String runMain(Block block, Class<?> type) {
        Method main;
        try {
            main = type.getMethod("main", String[].class);
        } catch (NoSuchMethodException e) {
            return "compiled (a class without main)";
        }
        if (!Modifier.isStatic(main.getModifiers())) {
            return "compiled (main is not static)";
        }
        main.setAccessible(true);
        run(block, "main", () -> main.invoke(null, (Object) new String[] {REDIS.server().uri()}));
        return "compiled, ran main";
    }

    private String runStatements(Block block, Class<?> type) {
        run(block, "the statements", () -> {
            Object snippet = type.getConstructor().newInstance();
            type.getMethod("run").invoke(snippet);
        });
        return "compiled, ran";
    }

    private String runMembers(Block block, Class<?> type, ClassLoader loader) {
        List<String> ran = new ArrayList<>();
        List<String> compiledOnly = new ArrayList<>();
        run(block, "the members in a Spring Boot application", () -> {
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(DocsApplication.class)
                    .web(WebApplicationType.NONE).bannerMode(Banner.Mode.OFF).logStartupInfo(false)
                    .resourceLoader(new DefaultResourceLoader(loader))
                    .initializers(c -> ((GenericApplicationContext) c).registerBean("snippet", type))
                    .run("--warden.redis-uri=" + REDIS.server().uri(), "--warden.key-prefix=docs:")) {
                Object bean = context.getBean("snippet");
                for (Method method : type.getDeclaredMethods()) {
                    if (method.isSynthetic()) {
                        continue;
                    }
                    if (method.isAnnotationPresent(Bean.class)) {
                        assertThat(context.getBean(method.getName())).as("%s: the bean of @Bean %s()", block.where(),
                                method.getName()).isInstanceOf(method.getReturnType());
                        ran.add("@Bean " + method.getName());
                        continue;
                    }
                    Object[] arguments = argumentsFor(method, context);
                    if (arguments == null) {
                        compiledOnly.add(method.getName());
                        continue;
                    }
                    method.setAccessible(true);
                    method.invoke(bean, arguments);
                    ran.add(method.getName());
                }
            }
        });
        return "compiled, ran in a Spring Boot application: " + ran
                + (compiledOnly.isEmpty() ? "" : "; compiled only (parameters it cannot give): " + compiledOnly);
    }

    /** @return arguments for the method's parameters, or null if the test cannot give one of them */
    private static Object[] argumentsFor(Method method, ConfigurableApplicationContext context) {
        Class<?>[] types = method.getParameterTypes();
        Object[] arguments = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            if (types[i] == DocContext.Order.class) {
                arguments[i] = new DocContext.Order(42);
            } else if (types[i] == LockClient.class) {
                arguments[i] = context.getBean(LockClient.class);
            } else {
                return null;
            }
        }
        return arguments;
    }

    interface Action {
        void run() throws Exception;
    }

    /** Runs a block's code within {@link #BOUND}, failing with the block's place and what it threw. */
    private static void run(Block block, String what, Action action) {
        assertTimeoutPreemptively(BOUND, () -> {
            try {
                action.run();
            } catch (InvocationTargetException e) {
                throw new AssertionError(block.where() + ": running " + what + " of the java block threw "
                        + e.getCause(), e.getCause());
            }
        }, block.where() + ": running " + what + " of the java block did not finish within " + BOUND);
    }
}
