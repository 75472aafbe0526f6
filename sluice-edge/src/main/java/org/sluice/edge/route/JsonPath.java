package org.sluice.edge.route;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * A path into a JSON body: {@code $} then steps, each {@code .key}, {@code ['key']} (for a
 * key holding {@code .}, {@code [} or spaces) or {@code [index]} into an array. At most
 * {@value #MAX_STEPS} steps, so finding a value is bounded whatever the body.
 *
 * @param text  the path as written
 * @param steps each a {@code String} key or an {@code Integer} index
 */
public record JsonPath(String text, List<Object> steps) {

    /** Most steps a path may have. */
    public static final int MAX_STEPS = 32;

    public JsonPath {
        steps = List.copyOf(steps);
    }

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException saying what is wrong, when it is not a path
     */
    public static JsonPath parse(String text) {
        if (!text.startsWith("$")) {
            throw new IllegalArgumentException("must start with $");
        }
        List<Object> steps = new ArrayList<>();
        int i = 1;
        while (i < text.length()) {
            if (steps.size() == MAX_STEPS) {
                throw new IllegalArgumentException("has more than " + MAX_STEPS + " steps");
            }
            char c = text.charAt(i);
            if (c == '.') {
                int end = i + 1;
                while (end < text.length() && plain(text.charAt(end))) {
                    end++;
                }
                if (end == i + 1) {
                    throw new IllegalArgumentException("has an empty key at character " + (i + 1));
                }
                steps.add(text.substring(i + 1, end));
                i = end;
            } else if (c == '[' && text.startsWith("['", i)) {
                int close = text.indexOf("']", i + 2);
                if (close < 0) {
                    throw new IllegalArgumentException("has an unclosed [' at character " + (i + 1));
                }
                String key = text.substring(i + 2, close);
                if (key.indexOf('\'') >= 0) {
                    throw new IllegalArgumentException("has a ' inside a quoted key at character " + (i + 1));
                }
                steps.add(key);
                i = close + 2;
            } else if (c == '[') {
                int close = text.indexOf(']', i);
                String digits = close < 0 ? "" : text.substring(i + 1, close);
                if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(d -> d >= '0' && d <= '9')) {
                    throw new IllegalArgumentException("has a bad index at character " + (i + 1)
                            + ": an index is [0] to [999999999], a key ['name']");
                }
                steps.add(Integer.valueOf(digits));
                i = close + 1;
            } else {
                throw new IllegalArgumentException("has " + c + " at character " + (i + 1) + " where . or [ belongs");
            }
        }
        return new JsonPath(text, steps);
    }

    private static boolean plain(char c) {
        return c != '.' && c != '[' && c != ']' && c != '\'' && !Character.isWhitespace(c);
    }

    /** The value at this path in {@code root}, or null when there is none (a missing key, an index past the end). */
    public JsonNode find(JsonNode root) {
        JsonNode at = root;
        for (int i = 0; i < steps.size() && at != null; i++) {
            Object step = steps.get(i);
            at = step instanceof Integer index
                    ? (at.isArray() ? at.get(index) : null)
                    : (at.isObject() ? at.get((String) step) : null);
        }
        return at;
    }

    @Override
    public String toString() {
        return text;
    }
}
