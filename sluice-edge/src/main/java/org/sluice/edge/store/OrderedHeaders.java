package org.sluice.edge.store;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * A request's headers in arrival order, name to value, held as one array of names and values:
 * the map a hook is committed with. Immutable, so {@link PendingHook} keeps it without the
 * copy it makes of any other map, and the RocksDB store's codec encodes it by index. Built on the accept
 * path once per hook, where a {@code LinkedHashMap} and its copy cost about 700 bytes.
 * Lookups scan the array: a request has a handful of headers.
 */
public final class OrderedHeaders extends AbstractMap<String, String> {

    /** name0, value0, name1, value1, ...: names distinct. */
    private final String[] fields;
    private final int size;

    private OrderedHeaders(String[] fields, int size) {
        this.fields = fields;
        this.size = size;
    }

    /**
     * Headers from {@code fields} (name, value, name, value, ...; the first {@code size} pairs);
     * the array is taken over, so the caller must not change it afterwards. A name given twice,
     * in the same case or another ({@code X-Id} and {@code x-id}), keeps its first place and
     * spelling and the values are joined with {@code ", "}, as HTTP reads a repeated header:
     * one header is stored, shown and forwarded, never two.
     */
    public static OrderedHeaders adopt(String[] fields, int size) {
        if (size < 0 || size * 2 > fields.length) {
            throw new IllegalArgumentException("size " + size + " does not fit " + fields.length + " fields");
        }
        int kept = 0;
        for (int i = 0; i < size; i++) {
            String name = Objects.requireNonNull(fields[2 * i], "header name");
            String value = Objects.requireNonNull(fields[2 * i + 1], "header value");
            int at = indexOfAnyCase(fields, kept, name);
            if (at >= 0) {
                fields[2 * at + 1] = fields[2 * at + 1] + ", " + value;
            } else {
                fields[2 * kept] = name;
                fields[2 * kept + 1] = value;
                kept++;
            }
        }
        if (kept < size) {
            Arrays.fill(fields, 2 * kept, 2 * size, null);
        }
        return new OrderedHeaders(fields, kept);
    }

    /** As {@link #indexOf}, but with ASCII letters folded: HTTP header names are case-insensitive. */
    private static int indexOfAnyCase(String[] fields, int size, String name) {
        for (int i = 0; i < size; i++) {
            if (asciiEqualsIgnoreCase(fields[2 * i], name)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean asciiEqualsIgnoreCase(String a, String b) {
        if (a.length() != b.length()) {
            return false;
        }
        for (int i = 0; i < a.length(); i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y && ((x | 0x20) != (y | 0x20) || !isAsciiLetter(x))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }

    private static int indexOf(String[] fields, int size, Object name) {
        for (int i = 0; i < size; i++) {
            if (fields[2 * i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The {@code i}th name, in arrival order. */
    public String name(int i) {
        return fields[2 * checkIndex(i)];
    }

    /** The {@code i}th value, in arrival order. */
    public String value(int i) {
        return fields[2 * checkIndex(i) + 1];
    }

    private int checkIndex(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("header " + i + " of " + size);
        }
        return i;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean containsKey(Object name) {
        return indexOf(fields, size, name) >= 0;
    }

    @Override
    public String get(Object name) {
        int at = indexOf(fields, size, name);
        return at < 0 ? null : fields[2 * at + 1];
    }

    @Override
    public Set<Map.Entry<String, String>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, String>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < size;
                    }

                    @Override
                    public Map.Entry<String, String> next() {
                        if (next >= size) {
                            throw new NoSuchElementException();
                        }
                        int i = next++;
                        return new AbstractMap.SimpleImmutableEntry<>(fields[2 * i], fields[2 * i + 1]);
                    }
                };
            }

            @Override
            public int size() {
                return size;
            }
        };
    }
}
