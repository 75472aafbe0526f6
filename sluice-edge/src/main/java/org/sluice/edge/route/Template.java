package org.sluice.edge.route;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * A text template of a transformation: literal text with placeholders in braces,
 * {@code {tenant}}, {@code {source}}, {@code {hook_id}} or a {@link JsonPath} of the body
 * ({@code {$.data.id}}); {@code {{} and {@code }}} write a brace. A placeholder ends at its
 * first {@code }}, so a path key holding a brace cannot be named. Immutable.
 *
 * @param text  the template as written
 * @param parts each a literal {@code String} or a {@link Slot}
 */
record Template(String text, List<Object> parts) {

    /** The names a placeholder may have besides a JSON path. */
    static final List<String> NAMES = List.of("tenant", "source", "hook_id");

    Template {
        parts = List.copyOf(parts);
    }

    /** One placeholder: a name of {@link #NAMES} (path null) or a path of the body. */
    record Slot(String name, JsonPath path) {
        String text() {
            return "{" + (path == null ? name : path.text()) + "}";
        }
    }

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException saying what is wrong and where
     */
    static Template parse(String text) {
        List<Object> parts = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '{' && text.startsWith("{{", i) || c == '}' && text.startsWith("}}", i)) {
                literal.append(c);
                i += 2;
            } else if (c == '}') {
                throw new IllegalArgumentException("has a lone } at character " + (i + 1) + " (write }} for a brace)");
            } else if (c == '{') {
                int close = text.indexOf('}', i);
                if (close < 0) {
                    throw new IllegalArgumentException("has an unclosed { at character " + (i + 1));
                }
                String name = text.substring(i + 1, close);
                Slot slot;
                if (name.startsWith("$")) {
                    try {
                        slot = new Slot(null, JsonPath.parse(name));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("has a placeholder {" + name + "} whose path " + e.getMessage());
                    }
                } else if (NAMES.contains(name)) {
                    slot = new Slot(name, null);
                } else {
                    throw new IllegalArgumentException("has an unknown placeholder {" + name + "} (known: {tenant}, "
                            + "{source}, {hook_id}, or a JSON path such as {$.type})");
                }
                if (literal.length() > 0) {
                    parts.add(literal.toString());
                    literal.setLength(0);
                }
                parts.add(slot);
                i = close + 1;
            } else {
                literal.append(c);
                i++;
            }
        }
        if (literal.length() > 0) {
            parts.add(literal.toString());
        }
        return new Template(text, parts);
    }

    /** True when the template reads the body. */
    boolean readsBody() {
        return parts.stream().anyMatch(p -> p instanceof Slot s && s.path() != null);
    }

    /** The one placeholder the whole template is, or null when it has literal text or several. */
    Slot whole() {
        return parts.size() == 1 && parts.get(0) instanceof Slot s ? s : null;
    }

    /** A value to put in a template, each placeholder's text passed through {@code encode}. */
    interface Encoder {
        String encode(String value);
    }

    /**
     * The template filled for one hook, each placeholder's value given to {@code encode}.
     *
     * @throws Shaping.Failure when a path finds no value, or the budget runs out
     */
    String render(Shaping shaping, Encoder encode) throws Shaping.Failure {
        StringBuilder out = new StringBuilder();
        for (Object part : parts) {
            shaping.tick();
            String piece = part instanceof Slot s ? encode.encode(shaping.text(s)) : (String) part;
            shaping.charge(piece.length());
            out.append(piece);
        }
        return out.toString();
    }

    /** The text of a JSON value in a template: a string as it is, a scalar as written, an object or array as JSON. */
    static String text(JsonNode value) {
        return value.isTextual() ? value.textValue() : value.isValueNode() ? value.asText() : value.toString();
    }
}
