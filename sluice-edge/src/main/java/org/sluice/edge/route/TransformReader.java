package org.sluice.edge.route;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.sluice.edge.settings.Paths;
import org.sluice.edge.settings.Problems;
import org.sluice.edge.settings.Section;
import org.sluice.edge.settings.Values;

/**
 * Reads a destination's {@code transform:} from the config tree. Every problem is added to
 * the section with its key path; the reader then returns null, so the boot fails listing all.
 * Header names are checked to be tokens here; which names a transport keeps for itself is
 * for its reader to refuse.
 */
public final class TransformReader {

    /** The keys of {@code transform}. */
    public static final List<String> KEYS = List.of("method", "path", "query", "headers", "body", "time_limit_ms",
            "max_output_bytes");
    /** The methods {@code method} may name. */
    public static final List<String> METHODS = List.of("POST", "PUT", "PATCH", "DELETE", "GET");
    /** Most {@code time_limit_ms}. */
    public static final long MAX_TIME_LIMIT_MS = 10_000;
    /** Most {@code max_output_bytes}: 64 MiB. */
    public static final long MAX_OUTPUT_BYTES = 64L << 20;
    /** Deepest nesting of a body template. */
    public static final int MAX_BODY_DEPTH = 32;

    private TransformReader() {
    }

    /** The transformation {@code raw} at key path {@code at}, or null after adding its problems. */
    public static Transform read(Object raw, String at, Problems problems) {
        int before = problems.size();
        Section s = Section.of(problems, at, raw, KEYS);
        String method = null;
        if (s.has("method")) {
            String m = Values.string(s.raw("method"));
            if (m == null || !METHODS.contains(m.toUpperCase(Locale.ROOT))) {
                s.problem(s.pathOf("method") + " must be one of " + String.join(", ", METHODS) + ", got "
                        + Values.render(s.raw("method")));
            } else {
                method = m.toUpperCase(Locale.ROOT);
            }
        }
        Template path = null;
        if (s.has("path")) {
            path = template(s.raw("path"), s.pathOf("path"), s);
            if (path != null && !path.text().startsWith("/")) {
                s.problem(s.pathOf("path") + " must start with /, got " + Values.render(s.raw("path")));
            } else if (path != null) {
                for (Object part : path.parts()) {
                    if (part instanceof String literal && !literalPath(literal)) {
                        s.problem(s.pathOf("path") + " must hold only URL path characters outside its placeholders "
                                + "(no ?, #, spaces or control characters: set the query with query), got "
                                + Values.render(s.raw("path")));
                        break;
                    }
                }
            }
        }
        Map<String, Template> query = null;
        if (s.has("query")) {
            query = templates(s, "query", false);
        }
        Map<String, Template> headers = s.has("headers") ? templates(s, "headers", true) : Map.of();
        Object body = s.has("body") ? body(s.raw("body"), s.pathOf("body"), s, 1) : null;
        long limit = s.integer("time_limit_ms", Transform.DEFAULT_TIME_LIMIT_MS, 1L, MAX_TIME_LIMIT_MS);
        long max = s.integer("max_output_bytes", Transform.DEFAULT_MAX_OUTPUT_BYTES, 1L, MAX_OUTPUT_BYTES);
        if (s.problems().size() != before) {
            return null;
        }
        return new Transform(method, path, query, headers, body, limit, max);
    }

    private static Template template(Object raw, String at, Section s) {
        String text = Values.string(raw);
        if (text == null && (raw instanceof Number || raw instanceof Boolean)) {
            text = raw.toString();
        }
        if (text == null) {
            s.problem(at + " must be a template string, got " + Values.render(raw));
            return null;
        }
        try {
            return Template.parse(text);
        } catch (IllegalArgumentException e) {
            s.problem(at + " must be a template such as \"/events/{$.type}\": " + Values.quote(text) + " " + e.getMessage());
            return null;
        }
    }

    /** {@code query} or {@code headers}: a mapping of names to templates. */
    private static Map<String, Template> templates(Section s, String key, boolean headerNames) {
        Map<String, Template> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : s.entries(key).entrySet()) {
            String at = Paths.child(s.pathOf(key), e.getKey());
            String name = headerNames ? e.getKey().toLowerCase(Locale.ROOT) : e.getKey();
            if (headerNames && !FilterReader.isHeaderName(e.getKey())) {
                s.problem(at + " names no HTTP header: a header name is a token (letters, digits and !#$%&'*+-.^_`|~)");
                continue;
            }
            if (name.isEmpty() || out.containsKey(name)) {
                s.problem(at + (name.isEmpty() ? " must have a non-empty name" : " names " + Values.quote(name) + " twice"));
                continue;
            }
            Template t = template(e.getValue(), at, s);
            if (t != null) {
                out.put(name, t);
            }
        }
        return out;
    }

    /** The body template: maps, lists, templates (from strings), booleans, numbers and null. */
    private static Object body(Object raw, String at, Section s, int depth) {
        if (depth > MAX_BODY_DEPTH) {
            s.problem(at + " nests deeper than " + MAX_BODY_DEPTH + " levels");
            return null;
        }
        if (raw instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                String k = String.valueOf(e.getKey());
                out.put(k, body(e.getValue(), Paths.child(at, k), s, depth + 1));
            }
            return out;
        }
        if (raw instanceof List<?> list) {
            List<Object> out = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                out.add(body(list.get(i), Paths.index(at, i), s, depth + 1));
            }
            return out;
        }
        if (raw instanceof Boolean || raw == null) {
            return raw;
        }
        if (raw instanceof Number n) {
            try {
                return new BigDecimal(n.toString());
            } catch (NumberFormatException nanOrInfinity) {
                s.problem(at + " must be a finite number, got " + Values.render(raw));
                return null;
            }
        }
        return template(raw, at, s);
    }

    /** Path characters of RFC 3986 ({@code pchar} and {@code /}), and {@code %} for a written escape. */
    private static boolean literalPath(String literal) {
        return Texts.alnumOr(literal, "-._~!$&'()*+,;=:@/%");
    }
}
