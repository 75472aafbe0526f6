package org.sluice.edge.settings;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One mapping of the config tree at a key path, read key by key. Every reader records a
 * problem (path + value) and returns the default when the value is wrong, so the walk
 * carries on and reports every problem. A key whose value is {@code null} (written as
 * {@code key:} or {@code key: null}) counts as absent.
 */
public final class Section {

    private final Problems problems;
    private final String path;
    private final Map<String, Object> map;

    private Section(Problems problems, String path, Map<String, Object> map) {
        this.problems = problems;
        this.path = path;
        this.map = map;
    }

    /**
     * The mapping at {@code path}; absent or null gives an empty section. Keys outside
     * {@code known} are reported as unknown.
     */
    @SuppressWarnings("unchecked")
    public static Section of(Problems problems, String path, Object value, List<String> known) {
        if (value == null) {
            return new Section(problems, path, Map.of());
        }
        if (!(value instanceof Map<?, ?>)) {
            problems.add((path.isEmpty() ? "the configuration" : path) + " must be a mapping, got " + Values.render(value));
            return new Section(problems, path, Map.of());
        }
        Map<String, Object> map = (Map<String, Object>) value;
        for (String key : map.keySet()) {
            if (!known.contains(key)) {
                problems.add(unknownKey(Paths.child(path, key), known));
            }
        }
        return new Section(problems, path, map);
    }

    public static String unknownKey(String fullPath, List<String> known) {
        return "unknown key \"" + fullPath + "\" (known keys here: " + String.join(", ", known) + ")";
    }

    public String path() {
        return path;
    }

    public String pathOf(String key) {
        return Paths.child(path, key);
    }

    public boolean has(String key) {
        return map.get(key) != null;
    }

    /**
     * Whether {@code key} is there; when it is not, records {@code <path> is required: <what>},
     * {@code what} saying what the key holds.
     */
    public boolean required(String key, String what) {
        if (has(key)) {
            return true;
        }
        problem(pathOf(key) + " is required: " + what);
        return false;
    }

    public Object raw(String key) {
        return map.get(key);
    }

    public Problems problems() {
        return problems;
    }

    /** The nested mapping under {@code key}. */
    public Section section(String key, List<String> known) {
        return of(problems, pathOf(key), map.get(key), known);
    }

    /** An entry-by-entry view of a mapping whose keys are names (sources, tenants); null when absent or wrong. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> entries(String key) {
        Object v = map.get(key);
        if (v == null) {
            return new LinkedHashMap<>();
        }
        if (!(v instanceof Map<?, ?>)) {
            problems.add(pathOf(key) + " must be a mapping, got " + Values.render(v));
            return new LinkedHashMap<>();
        }
        return (Map<String, Object>) v;
    }

    public String string(String key, String def) {
        return converted(key, def, Values::string, "a string");
    }

    public boolean bool(String key, boolean def) {
        return converted(key, def, Values::bool, "true or false");
    }

    /** The value at {@code key} converted ({@code def} when absent); a value that does not convert (null) is a problem. */
    private <T> T converted(String key, T def, Function<Object, T> convert, String expected) {
        Object v = map.get(key);
        if (v == null) {
            return def;
        }
        T t = convert.apply(v);
        if (t == null) {
            problems.add(pathOf(key) + " must be " + expected + ", got " + Values.render(v));
            return def;
        }
        return t;
    }

    /** An integer in {@code [min, max]}. */
    public long integer(String key, long def, long min, long max) {
        Object v = map.get(key);
        if (v == null) {
            return def;
        }
        BigInteger b = Values.integer(v);
        if (b == null || b.compareTo(BigInteger.valueOf(min)) < 0 || b.compareTo(BigInteger.valueOf(max)) > 0) {
            String range = max == Long.MAX_VALUE || max == Integer.MAX_VALUE
                    ? "an integer of at least " + min
                    : "an integer between " + min + " and " + max;
            problems.add(pathOf(key) + " must be " + range + ", got " + Values.render(v));
            return def;
        }
        return b.longValue();
    }

    public int integer(String key, int def, int min, int max) {
        return (int) integer(key, (long) def, (long) min, (long) max);
    }

    /** A number greater than 0 and at most {@code max}. */
    public double positiveNumber(String key, double def, double max) {
        Object v = map.get(key);
        if (v == null) {
            return def;
        }
        Double d = Values.number(v);
        if (d == null || !(d > 0) || d > max) {
            problems.add(pathOf(key) + " must be a number greater than 0 and at most " + trim(max)
                    + ", got " + Values.render(v));
            return def;
        }
        return d;
    }

    /** One of the constants of {@code def}'s enum, as {@link ConfigWord} spells them; {@code def} when absent. */
    public <E extends Enum<E> & ConfigWord> E choice(String key, E def) {
        return choice(key, def, def.getDeclaringClass().getEnumConstants(), ConfigWord::configName);
    }

    /** One of an enum's config spellings. */
    public <E extends Enum<E>> E choice(String key, E def, E[] values, Function<E, String> name) {
        Object v = map.get(key);
        if (v == null) {
            return def;
        }
        String s = Values.string(v);
        for (E e : values) {
            if (name.apply(e).equals(s)) {
                return e;
            }
        }
        StringBuilder names = new StringBuilder();
        for (E e : values) {
            names.append(names.length() == 0 ? "" : ", ").append(name.apply(e));
        }
        problems.add(pathOf(key) + " must be one of " + names + ", got " + Values.render(v));
        return def;
    }

    /** A list; null (and a problem) when the value is not one, empty when absent. */
    public List<?> list(String key) {
        Object v = map.get(key);
        if (v == null) {
            return List.of();
        }
        if (!(v instanceof List<?> l)) {
            problems.add(pathOf(key) + " must be a list, got " + Values.render(v));
            return null;
        }
        return l;
    }

    /**
     * The list at the required {@code key}, holding at least one item; null after recording
     * why not: the key is missing ({@code what} says what belongs there), its value is not a
     * list, or the list is empty ({@code <key> must <atLeastOne>, got an empty list}).
     */
    public List<?> nonEmptyList(String key, String what, String atLeastOne) {
        if (!required(key, what)) {
            return null;
        }
        List<?> raw = list(key);
        if (raw == null) {
            return null;
        }
        if (raw.isEmpty()) {
            problem(pathOf(key) + " must " + atLeastOne + ", got an empty list");
            return null;
        }
        return raw;
    }

    public void problem(String message) {
        problems.add(message);
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
