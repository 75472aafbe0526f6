package org.sluice.edge.route;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.sluice.edge.settings.Paths;
import org.sluice.edge.settings.Problems;
import org.sluice.edge.settings.Values;

/**
 * Reads a {@code when:} filter from the config tree. Every problem is added with its key
 * path and the reader returns null, so the boot fails listing all of them:
 *
 * <pre>
 * filter    = {all: [filter, ...]} | {any: [filter, ...]} | {not: filter}
 *           | {json: "$.path" | header: Name,  predicate}
 *           | {event_type: {predicate}}
 * predicate = equals: V | in: [V, ...] | prefix: "s" | exists: bool | matches: "re"
 * </pre>
 * where V is a string, a number or a boolean.
 */
public final class FilterReader {

    /** The combinators. */
    public static final List<String> COMBINATORS = List.of("all", "any", "not");
    /** What a leaf reads. */
    public static final List<String> OPERANDS = List.of("json", "header");
    /** The key of a leaf over the hook's event type ({@link EventType}). */
    public static final String EVENT_TYPE = "event_type";
    /** The predicates of a leaf. */
    public static final List<String> PREDICATES = List.of("equals", "in", "prefix", "exists", "matches");
    /** Deepest nesting of combinators. */
    public static final int MAX_DEPTH = 16;
    /** Most values of one {@code in}. */
    public static final int MAX_IN = 1024;

    private static final String SHAPE = "a mapping with one of all, any, not, event_type, or json or header with one of "
            + String.join(", ", PREDICATES);

    private FilterReader() {
    }

    /** The filter {@code raw} at {@code path}, or null after adding its problems. */
    public static Filter read(Object raw, String path, Problems problems) {
        int before = problems.size();
        Filter f = filter(raw, path, problems, 1);
        return problems.size() == before ? f : null;
    }

    private static Filter filter(Object raw, String path, Problems problems, int depth) {
        if (!(raw instanceof Map<?, ?> map) || map.isEmpty()) {
            problems.add(path + " must be " + SHAPE + ", got " + Values.render(raw));
            return null;
        }
        if (depth > MAX_DEPTH) {
            problems.add(path + " nests filters deeper than " + MAX_DEPTH + " levels");
            return null;
        }
        if (map.containsKey(EVENT_TYPE)) {
            return eventType(map, Paths.child(path, EVENT_TYPE), problems);
        }
        List<String> combinators = new ArrayList<>();
        List<String> operands = new ArrayList<>();
        List<String> predicates = new ArrayList<>();
        for (Object k : map.keySet()) {
            String key = String.valueOf(k);
            if (COMBINATORS.contains(key)) {
                combinators.add(key);
            } else if (OPERANDS.contains(key)) {
                operands.add(key);
            } else if (PREDICATES.contains(key)) {
                predicates.add(key);
            } else {
                problems.add(path + " has an unknown predicate " + Values.quote(key) + " (known: "
                        + String.join(", ", COMBINATORS) + ", " + EVENT_TYPE + ", " + String.join(", ", OPERANDS) + ", "
                        + String.join(", ", PREDICATES) + ")");
                return null;
            }
        }
        if (!combinators.isEmpty()) {
            if (map.size() > 1) {
                problems.add(path + " must hold one predicate per mapping, got " + String.join(", ", keys(map))
                        + " (combine them with all or any)");
                return null;
            }
            String c = combinators.get(0);
            Object arg = map.get(c);
            String at = Paths.child(path, c);
            if (c.equals("not")) {
                Filter of = filter(arg, at, problems, depth + 1);
                return of == null ? null : new Filter.Not(of);
            }
            if (!(arg instanceof List<?> list) || list.isEmpty()) {
                problems.add(at + " must be a non-empty list of filters, got " + Values.render(arg));
                return null;
            }
            List<Filter> of = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                Filter f = filter(list.get(i), Paths.index(at, i), problems, depth + 1);
                if (f != null) {
                    of.add(f);
                }
            }
            if (of.size() != list.size()) {
                return null;
            }
            return new Filter.AllOrAny(c.equals("all"), of);
        }
        if (operands.size() != 1 || predicates.size() != 1) {
            String what = predicates.size() > 1 ? "must hold one predicate per mapping, got "
                    + String.join(", ", predicates) + " (combine them with all or any)"
                    : operands.size() > 1 ? "must read either json or header, not both"
                    : operands.isEmpty() ? "must say what " + predicates.get(0) + " tests: json: \"$.path\" or header: Name"
                    : "must hold a predicate beside " + operands.get(0) + ": one of " + String.join(", ", PREDICATES);
            problems.add(path + " " + what);
            return null;
        }
        Filter.Operand on = operand(operands.get(0), map.get(operands.get(0)), Paths.child(path, operands.get(0)), problems);
        Filter.Predicate p = predicate(predicates.get(0), map.get(predicates.get(0)), Paths.child(path, predicates.get(0)),
                problems);
        return on == null || p == null ? null : new Filter.Leaf(on, p);
    }

    /** {@code {event_type: {<predicate>: ARG}}}, {@code at} the path of {@code event_type}. */
    private static Filter eventType(Map<?, ?> map, String at, Problems problems) {
        if (map.size() > 1) {
            problems.add(at + " must stand alone in its mapping, got " + String.join(", ", keys(map))
                    + " (write {event_type: {in: [...]}} and combine with all or any)");
            return null;
        }
        Object arg = map.get(EVENT_TYPE);
        if (!(arg instanceof Map<?, ?> inner) || inner.size() != 1
                || !PREDICATES.contains(String.valueOf(inner.keySet().iterator().next()))) {
            problems.add(at + " must be a mapping with one of " + String.join(", ", PREDICATES)
                    + " (e.g. {in: [\"invoice.paid\"]}), got " + Values.render(arg));
            return null;
        }
        String key = String.valueOf(inner.keySet().iterator().next());
        Filter.Predicate p = predicate(key, inner.get(key), Paths.child(at, key), problems);
        return p == null ? null : new Filter.Leaf(new Filter.Operand.Event(), p);
    }

    private static List<String> keys(Map<?, ?> map) {
        return map.keySet().stream().map(String::valueOf).toList();
    }

    /** {@code json: "$.path"} or {@code header: Name} at {@code at}, or null after adding a problem. */
    static Filter.Operand operand(String key, Object arg, String at, Problems problems) {
        String text = Values.string(arg);
        if (key.equals("header")) {
            if (text == null || !isHeaderName(text)) {
                problems.add(at + " must be an HTTP header name, got " + Values.render(arg));
                return null;
            }
            return new Filter.Operand.Header(text);
        }
        if (text == null) {
            problems.add(at + " must be a JSON path such as \"$.data.type\", got " + Values.render(arg));
            return null;
        }
        try {
            return new Filter.Operand.Json(JsonPath.parse(text));
        } catch (IllegalArgumentException e) {
            problems.add(at + " must be a JSON path such as \"$.data.type\": " + Values.quote(text) + " " + e.getMessage());
            return null;
        }
    }

    private static Filter.Predicate predicate(String key, Object arg, String at, Problems problems) {
        switch (key) {
            case "equals" -> {
                Filter.Constant c = constant(arg, at, problems);
                return c == null ? null : new Filter.Predicate.Equals(c);
            }
            case "in" -> {
                if (!(arg instanceof List<?> list) || list.isEmpty() || list.size() > MAX_IN) {
                    problems.add(at + " must be a list of 1 to " + MAX_IN + " strings, numbers or booleans, got "
                            + (arg instanceof List<?> l ? l.size() + " values" : Values.render(arg)));
                    return null;
                }
                List<Filter.Constant> values = new ArrayList<>();
                for (int i = 0; i < list.size(); i++) {
                    Filter.Constant c = constant(list.get(i), Paths.index(at, i), problems);
                    if (c != null) {
                        values.add(c);
                    }
                }
                return values.size() == list.size() ? new Filter.Predicate.In(values) : null;
            }
            case "prefix" -> {
                String s = Values.string(arg);
                if (s == null || s.isEmpty()) {
                    problems.add(at + " must be a non-empty string, got " + Values.render(arg));
                    return null;
                }
                return new Filter.Predicate.Prefix(s);
            }
            case "exists" -> {
                Boolean b = Values.bool(arg);
                if (b == null) {
                    problems.add(at + " must be true or false, got " + Values.render(arg));
                    return null;
                }
                return new Filter.Predicate.Exists(b);
            }
            default -> {
                String s = Values.string(arg);
                if (s == null || s.isEmpty()) {
                    problems.add(at + " must be a non-empty regular expression (RE2 syntax), got " + Values.render(arg));
                    return null;
                }
                try {
                    return new Filter.Predicate.Matches(Pattern.compile(s));
                } catch (PatternSyntaxException e) {
                    problems.add(at + " must be a regular expression in RE2 syntax (no backreferences or lookaround), got "
                            + Values.render(arg) + ": " + e.getDescription());
                    return null;
                }
            }
        }
    }

    private static Filter.Constant constant(Object raw, String at, Problems problems) {
        String s = Values.string(raw);
        if (s != null) {
            return new Filter.Constant(s);
        }
        if (raw instanceof Boolean b) {
            return new Filter.Constant(b);
        }
        if (raw instanceof Number n) {
            try {
                return new Filter.Constant(new BigDecimal(n.toString()));
            } catch (NumberFormatException nanOrInfinity) {
                // reported below
            }
        }
        problems.add(at + " must be a string, a number or a boolean, got " + Values.render(raw));
        return null;
    }

    /** An RFC 9110 token. */
    static boolean isHeaderName(String s) {
        return !s.isEmpty() && s.length() <= 256 && Texts.alnumOr(s, "!#$%&'*+-.^_`|~");
    }
}
