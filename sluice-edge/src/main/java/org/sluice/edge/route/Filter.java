package org.sluice.edge.route;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.re2j.Pattern;
import java.math.BigDecimal;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A {@code when:} filter of a {@code deliver_to} entry: a test of one value of a hook (a
 * {@link Leaf}) or a combination of filters ({@link AllOrAny}, {@link Not}).
 * {@link #text()} writes it back in the config's flow form, which the admin API shows.
 */
public sealed interface Filter permits Filter.Leaf, Filter.AllOrAny, Filter.Not {

    /** True when the hook passes. */
    boolean test(HookFacts hook);

    /** The filter in the config's flow form, e.g. {@code {json: "$.type", equals: "push"}}. */
    String text();

    /**
     * {@code all: [...]} ({@code every}): every filter of the list passes; {@code any: [...]}:
     * at least one does. Evaluation stops at the first filter that decides.
     */
    record AllOrAny(boolean every, List<Filter> of) implements Filter {
        public AllOrAny {
            of = List.copyOf(of);
        }

        @Override
        public boolean test(HookFacts hook) {
            for (Filter f : of) {
                if (f.test(hook) != every) {
                    return !every; // all: one fails; any: one passes
                }
            }
            return every;
        }

        @Override
        public String text() {
            return "{" + (every ? "all" : "any") + ": "
                    + of.stream().map(Filter::text).collect(Collectors.joining(", ", "[", "]")) + "}";
        }
    }

    /** {@code not: {...}}: the filter fails. */
    record Not(Filter of) implements Filter {
        @Override
        public boolean test(HookFacts hook) {
            return !of.test(hook);
        }

        @Override
        public String text() {
            return "{not: " + of.text() + "}";
        }
    }

    /**
     * One predicate over one value: {@code {json: PATH | header: NAME, <predicate>: ARG}}, or
     * {@code {event_type: {<predicate>: ARG}}}.
     */
    record Leaf(Operand on, Predicate predicate) implements Filter {
        @Override
        public boolean test(HookFacts hook) {
            if (on instanceof Operand.Header h) {
                return predicate.onText(hook.header(h.name()));
            }
            if (on instanceof Operand.Event) {
                return predicate.onText(hook.eventType());
            }
            JsonNode root = hook.json();
            return root != null && predicate.onJson(((Operand.Json) on).path().find(root));
        }

        @Override
        public String text() {
            return on instanceof Operand.Event ? "{event_type: {" + predicate.text() + "}}"
                    : "{" + on.text() + ", " + predicate.text() + "}";
        }
    }

    /** What a {@link Leaf} reads. */
    sealed interface Operand {
        String text();

        /** {@code json: "$.a.b"}: the value at a path of the body (none when the body is not JSON). */
        record Json(JsonPath path) implements Operand {
            @Override
            public String text() {
                return "json: " + Texts.quote(path.text());
            }
        }

        /** {@code header: Name}: the header's (first) value, the name matched case-insensitively. */
        record Header(String name) implements Operand {
            @Override
            public String text() {
                return "header: " + Texts.quote(name); // quoted: a name such as 123 or ~ would read back as another type
            }
        }

        /**
         * {@code event_type: {<predicate>: ARG}}: the hook's event type as the source derives it
         * ({@link EventType}), compared as text; absent when the hook has none.
         */
        record Event() implements Operand {
            @Override
            public String text() {
                return "event_type";
            }
        }
    }

    /**
     * The test of a {@link Leaf}, over a header's text or a JSON value; both are null when
     * the header or the path is absent.
     */
    sealed interface Predicate {
        boolean onText(String value);

        boolean onJson(JsonNode value);

        String text();

        /** {@code equals: V}: the value is V (a string, number or boolean; a header compares V's text). */
        record Equals(Constant value) implements Predicate {
            @Override
            public boolean onText(String v) {
                return v != null && v.equals(value.text());
            }

            @Override
            public boolean onJson(JsonNode v) {
                return value.sameAs(v);
            }

            @Override
            public String text() {
                return "equals: " + value.render();
            }
        }

        /** {@code in: [V, ...]}: the value is one of the list. */
        record In(List<Constant> values) implements Predicate {
            public In {
                values = List.copyOf(values);
            }

            @Override
            public boolean onText(String v) {
                for (Constant c : values) {
                    if (v != null && v.equals(c.text())) {
                        return true;
                    }
                }
                return false;
            }

            @Override
            public boolean onJson(JsonNode v) {
                for (Constant c : values) {
                    if (c.sameAs(v)) {
                        return true;
                    }
                }
                return false;
            }

            @Override
            public String text() {
                return "in: " + values.stream().map(Constant::render).collect(Collectors.joining(", ", "[", "]"));
            }
        }

        /** {@code prefix: "s"}: the value is a string starting with s. */
        record Prefix(String prefix) implements Predicate {
            @Override
            public boolean onText(String v) {
                return v != null && v.startsWith(prefix);
            }

            @Override
            public boolean onJson(JsonNode v) {
                return v != null && v.isTextual() && v.textValue().startsWith(prefix);
            }

            @Override
            public String text() {
                return "prefix: " + Texts.quote(prefix);
            }
        }

        /** {@code exists: true|false}: the header or path is present (a JSON null is present). */
        record Exists(boolean present) implements Predicate {
            @Override
            public boolean onText(String v) {
                return (v != null) == present;
            }

            @Override
            public boolean onJson(JsonNode v) {
                return (v != null) == present;
            }

            @Override
            public String text() {
                return "exists: " + present;
            }
        }

        /**
         * {@code matches: "re"}: the value is a string in which the RE2 expression finds a
         * match (anywhere: anchor with {@code ^} and {@code $}). RE2/J matches in time linear
         * in the input, whatever the expression.
         */
        record Matches(Pattern pattern) implements Predicate {
            @Override
            public boolean onText(String v) {
                return v != null && pattern.matcher(v).find();
            }

            @Override
            public boolean onJson(JsonNode v) {
                return v != null && v.isTextual() && pattern.matcher(v.textValue()).find();
            }

            @Override
            public String text() {
                return "matches: " + Texts.quote(pattern.pattern());
            }
        }
    }

    /**
     * A scalar of {@code equals} and {@code in}: a string, a number or a boolean. A JSON
     * number equals a number of the same value ({@code 1} and {@code 1.0} alike).
     *
     * @param value a {@code String}, {@code BigDecimal} or {@code Boolean}
     */
    record Constant(Object value) {
        /** The text a header value is compared with. */
        String text() {
            return value instanceof BigDecimal d ? d.toPlainString() : value.toString();
        }

        boolean sameAs(JsonNode v) {
            if (v == null) {
                return false;
            }
            if (value instanceof String s) {
                return v.isTextual() && v.textValue().equals(s);
            }
            if (value instanceof Boolean b) {
                return v.isBoolean() && v.booleanValue() == b;
            }
            return v.isNumber() && v.decimalValue().compareTo((BigDecimal) value) == 0;
        }

        String render() {
            return value instanceof String s ? Texts.quote(s) : text();
        }
    }
}
