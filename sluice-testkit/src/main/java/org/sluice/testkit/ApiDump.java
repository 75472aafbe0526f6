package org.sluice.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public API of one library module as sorted text, to check in and compare (the
 * idea of OkHttp's {@code okhttp/api/okhttp.api}).
 *
 * <p>{@link #of(Class)} finds the module by one of its classes (its classes directory or
 * its jar, whichever the class was loaded from), takes every class under that class's
 * package, and writes one block per class a user can reach: a public class (or a public
 * or protected class nested in one), with its public and protected constructors, methods
 * and fields, generic signatures and {@code throws} clauses included. Packages with an
 * {@code internal} segment are left out: they are implementation that happens to be
 * public for another package of the same module, and users must not touch them.
 * Synthetic and bridge members are left out; everything is sorted, so the text changes
 * only when the API does.
 *
 * <p>{@link #check(Class, Path)} compares a dump with the checked-in file, ignoring its
 * {@code #} comment lines (the hand-written header). With the system property {@code
 * sluice.api.update=true} it rewrites the file instead (keeping the header): that is the
 * deliberate way to change an API.
 */
public final class ApiDump {

    /** The system property that makes {@link #check} rewrite the file instead of failing. */
    public static final String UPDATE_PROPERTY = "sluice.api.update";

    private static final int MEMBER_MODIFIERS = Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC
            | Modifier.FINAL | Modifier.ABSTRACT;

    private ApiDump() {
    }

    // ------------------------------------------------------------------ dumping

    /** The API of the module {@code anchor} was loaded from, limited to {@code anchor}'s package and its sub-packages. */
    public static String of(Class<?> anchor) {
        String root = anchor.getPackageName();
        List<String> names = classNames(codeLocation(anchor)).stream()
                .filter(n -> n.startsWith(root + "."))
                .filter(n -> !isInternal(n))
                .sorted()
                .collect(Collectors.toList());
        StringBuilder out = new StringBuilder();
        for (String name : names) {
            Class<?> c;
            try {
                c = Class.forName(name, false, anchor.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                throw new IllegalStateException("cannot load " + name + " for the API dump", e);
            }
            if (isReachable(c)) {
                appendClass(out, c);
            }
        }
        return out.toString();
    }

    private static boolean isInternal(String className) {
        String pkg = className.substring(0, className.lastIndexOf('.'));
        return Arrays.asList(pkg.split("\\.")).contains("internal");
    }

    /** Public top-level, or public/protected nested in a reachable class; never anonymous, local or synthetic. */
    private static boolean isReachable(Class<?> c) {
        if (c.isSynthetic() || c.isAnonymousClass() || c.isLocalClass()) {
            return false;
        }
        Class<?> outer = c.getDeclaringClass();
        if (outer == null) {
            return Modifier.isPublic(c.getModifiers());
        }
        return (Modifier.isPublic(c.getModifiers()) || Modifier.isProtected(c.getModifiers())) && isReachable(outer);
    }

    private static void appendClass(StringBuilder out, Class<?> c) {
        out.append(classHeader(c)).append(" {\n");
        List<String> fields = new ArrayList<>();
        for (Field f : c.getDeclaredFields()) {
            if (visible(f.getModifiers()) && !f.isSynthetic()) {
                fields.add(modifiers(f.getModifiers()) + f.getGenericType().getTypeName() + " " + f.getName());
            }
        }
        List<String> constructors = new ArrayList<>();
        for (Constructor<?> k : c.getDeclaredConstructors()) {
            if (visible(k.getModifiers()) && !k.isSynthetic()) {
                constructors.add(modifiers(k.getModifiers()) + typeParameters(k) + "<init>" + parameters(k) + throwsClause(k));
            }
        }
        List<String> methods = new ArrayList<>();
        for (Method m : c.getDeclaredMethods()) {
            if (visible(m.getModifiers()) && !m.isSynthetic() && !m.isBridge()) {
                String mods = modifiers(m.getModifiers()) + (m.isDefault() ? "default " : "");
                methods.add(mods + typeParameters(m) + m.getGenericReturnType().getTypeName() + " " + m.getName()
                        + parameters(m) + throwsClause(m));
            }
        }
        for (List<String> section : List.of(fields, constructors, methods)) {
            section.stream().sorted().forEach(line -> out.append("  ").append(line).append('\n'));
        }
        out.append("}\n\n");
    }

    private static String classHeader(Class<?> c) {
        int mods = c.getModifiers();
        StringBuilder h = new StringBuilder();
        h.append(Modifier.isPublic(mods) ? "public " : "protected ");
        if (c.getDeclaringClass() != null && Modifier.isStatic(mods) && !c.isInterface() && !c.isEnum() && !c.isRecord()) {
            h.append("static ");
        }
        if (c.isSealed()) {
            h.append("sealed ");
        }
        if (c.isAnnotation()) {
            h.append("@interface ");
        } else if (c.isInterface()) {
            h.append("interface ");
        } else if (c.isEnum()) {
            h.append("enum ");
        } else if (c.isRecord()) {
            h.append("record ");
        } else {
            h.append(Modifier.isAbstract(mods) ? "abstract " : "").append(Modifier.isFinal(mods) ? "final " : "")
                    .append("class ");
        }
        h.append(c.getName()).append(typeParameters(c.getTypeParameters()));
        Type superclass = c.getGenericSuperclass();
        if (superclass != null && superclass != Object.class && !c.isEnum() && !c.isRecord()) {
            h.append(" extends ").append(superclass.getTypeName());
        }
        Type[] interfaces = c.getGenericInterfaces();
        if (interfaces.length > 0) {
            h.append(c.isInterface() ? " extends " : " implements ")
                    .append(Stream.of(interfaces).map(Type::getTypeName).collect(Collectors.joining(", ")));
        }
        if (c.isSealed()) {
            h.append(" permits ").append(Stream.of(c.getPermittedSubclasses()).map(Class::getName).sorted()
                    .collect(Collectors.joining(", ")));
        }
        return h.toString();
    }

    private static boolean visible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static String modifiers(int modifiers) {
        String s = Modifier.toString(modifiers & MEMBER_MODIFIERS);
        return s.isEmpty() ? "" : s + " ";
    }

    private static String typeParameters(Executable e) {
        String s = typeParameters(e.getTypeParameters());
        return s.isEmpty() ? "" : s + " ";
    }

    private static String typeParameters(TypeVariable<?>[] vars) {
        if (vars.length == 0) {
            return "";
        }
        return Stream.of(vars).map(v -> {
            Type[] bounds = v.getBounds();
            boolean plain = bounds.length == 1 && bounds[0] == Object.class;
            return plain ? v.getName() : v.getName() + " extends "
                    + Stream.of(bounds).map(Type::getTypeName).collect(Collectors.joining(" & "));
        }).collect(Collectors.joining(", ", "<", ">"));
    }

    private static String parameters(Executable e) {
        Type[] types = e.getGenericParameterTypes();
        if (types.length != e.getParameterCount()) { // inner-class and enum constructors: the generic view drops synthetic ones
            types = e.getParameterTypes();
        }
        String joined = Stream.of(types).map(Type::getTypeName).collect(Collectors.joining(", "));
        if (e.isVarArgs() && joined.endsWith("[]")) {
            joined = joined.substring(0, joined.length() - 2) + "...";
        }
        return "(" + joined + ")";
    }

    private static String throwsClause(Executable e) {
        Type[] thrown = e.getGenericExceptionTypes();
        if (thrown.length == 0) {
            return "";
        }
        return " throws " + Stream.of(thrown).map(Type::getTypeName).sorted().collect(Collectors.joining(", "));
    }

    // ------------------------------------------------------------------ finding the classes

    private static Path codeLocation(Class<?> anchor) {
        CodeSource source = anchor.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            throw new IllegalStateException("cannot tell where " + anchor.getName() + " was loaded from");
        }
        try {
            return Path.of(source.getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot tell where " + anchor.getName() + " was loaded from", e);
        }
    }

    private static List<String> classNames(Path location) {
        List<String> names = new ArrayList<>();
        try {
            if (Files.isDirectory(location)) {
                try (Stream<Path> files = Files.walk(location)) {
                    files.filter(p -> p.toString().endsWith(".class"))
                            .map(p -> location.relativize(p).toString())
                            .forEach(rel -> addClassName(names, rel.replace(location.getFileSystem().getSeparator(), "/")));
                }
            } else {
                try (JarFile jar = new JarFile(location.toFile())) {
                    Enumeration<JarEntry> entries = jar.entries();
                    while (entries.hasMoreElements()) {
                        addClassName(names, entries.nextElement().getName());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the classes of " + location, e);
        }
        return names;
    }

    private static void addClassName(List<String> names, String entry) {
        if (entry.endsWith(".class") && !entry.endsWith("module-info.class") && !entry.endsWith("package-info.class")
                && !entry.startsWith("META-INF/")) {
            names.add(entry.substring(0, entry.length() - ".class".length()).replace('/', '.'));
        }
    }

    // ------------------------------------------------------------------ checking

    /**
     * Compares the API of {@code anchor}'s module with {@code apiFile}, ignoring the file's
     * {@code #} lines. Returns normally when they match, or when the update property is set
     * (the file is then rewritten with its header kept); throws {@link AssertionError} with
     * a line diff and the command to run otherwise.
     */
    public static void check(Class<?> anchor, Path apiFile) throws IOException {
        check(anchor, apiFile, Boolean.getBoolean(UPDATE_PROPERTY));
    }

    /** {@link #check(Class, Path)} with the update switch given (true: rewrite a differing file). */
    public static void check(Class<?> anchor, Path apiFile, boolean update) throws IOException {
        String actual = of(anchor);
        List<String> header = new ArrayList<>();
        List<String> expectedLines = new ArrayList<>();
        if (Files.exists(apiFile)) {
            for (String line : Files.readAllLines(apiFile, StandardCharsets.UTF_8)) {
                (line.startsWith("#") ? header : expectedLines).add(line);
            }
        }
        String expected = String.join("\n", expectedLines).strip();
        if (expected.equals(actual.strip())) {
            return;
        }
        if (update) {
            String head = header.isEmpty() ? "" : String.join("\n", header) + "\n\n";
            Files.createDirectories(apiFile.toAbsolutePath().getParent());
            Files.writeString(apiFile, head + actual.strip() + "\n", StandardCharsets.UTF_8);
            return;
        }
        throw new AssertionError("The public API of " + anchor.getPackageName() + " differs from " + apiFile
                + " (- checked in, + now):\n" + diff(expected.lines().toList(), actual.strip().lines().toList())
                + "\nIf the change is intended, rewrite the file with -D" + UPDATE_PROPERTY
                + "=true (e.g. mvn -pl <module> -am verify -Dtest=<the ApiSurfaceTest> "
                + "-Dsurefire.failIfNoSpecifiedTests=false -D" + UPDATE_PROPERTY + "=true) and commit it.");
    }

    /**
     * A longest-common-subsequence line diff: {@code -} lines only in {@code a}, {@code +}
     * lines only in {@code b}, each run under an {@code @} line naming its class.
     */
    static String diff(List<String> a, List<String> b) {
        int[][] lcs = new int[a.size() + 1][b.size() + 1];
        for (int i = a.size() - 1; i >= 0; i--) {
            for (int j = b.size() - 1; j >= 0; j--) {
                lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        StringBuilder out = new StringBuilder();
        String current = "";
        String shown = null;
        int i = 0;
        int j = 0;
        while (i < a.size() || j < b.size()) {
            String line;
            char sign;
            if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
                line = a.get(i++);
                j++;
                sign = ' ';
            } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] >= lcs[i + 1][j])) {
                line = b.get(j++);
                sign = '+';
            } else {
                line = a.get(i++);
                sign = '-';
            }
            boolean header = !line.isEmpty() && !line.startsWith(" ") && !line.equals("}");
            if (header) {
                current = line;
            }
            if (sign != ' ') {
                if (header) {
                    shown = current;
                } else if (!current.equals(shown)) {
                    out.append("@ ").append(current).append('\n');
                    shown = current;
                }
                out.append(sign).append(' ').append(line).append('\n');
            }
        }
        return out.toString();
    }
}
