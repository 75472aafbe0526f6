package org.sluice.edge.route;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Optional;
import org.sluice.edge.settings.Problems;
import org.sluice.edge.settings.Values;

/**
 * Where a source's hooks name their event type ({@code sources.<id>.event_type}): a header
 * ({@code {header: X-GitHub-Event}}) or a JSON path of the body ({@code {json: "$.type"}}).
 * A source that does not set it gets its provider's ({@link #defaultFor}); {@code none}
 * turns that off.
 *
 * <p>A hook's event type is the header's value, or the value at the path when it is a
 * string, a number or a boolean (its text); none when that is absent, another kind of JSON
 * value, the body is not JSON, or it is longer than {@value #MAX_LENGTH} characters, so a
 * hostile body cannot make it large. Immutable and thread-safe.
 */
public final class EventType {

    /** Longest event type kept; a longer value is no event type. */
    public static final int MAX_LENGTH = 256;

    /** No event type: every hook's is none. */
    public static final EventType NONE = new EventType(null);

    private static final String SHAPE = "{header: Name}, {json: \"$.path\"} or none";

    private final Filter.Operand from;

    private EventType(Filter.Operand from) {
        this.from = from;
    }

    /** The event type in header {@code name}. */
    public static EventType header(String name) {
        return new EventType(new Filter.Operand.Header(name));
    }

    /** The event type at {@code path} of the body. */
    public static EventType json(String path) {
        return new EventType(new Filter.Operand.Json(JsonPath.parse(path)));
    }

    /**
     * The provider's: {@code X-GitHub-Event} for {@code github}, {@code X-Shopify-Topic} for
     * {@code shopify}, {@code $.type} for {@code stripe} and {@code standard_webhooks};
     * none for the other verify schemes.
     */
    public static EventType defaultFor(String scheme) {
        return switch (scheme == null ? "" : scheme) {
            case "github" -> header("X-GitHub-Event");
            case "shopify" -> header("X-Shopify-Topic");
            case "stripe", "standard_webhooks" -> json("$.type");
            default -> NONE;
        };
    }

    /**
     * Reads {@code sources.<id>.event_type} at {@code path}: {@code {header: Name}},
     * {@code {json: "$.path"}} or {@code none}; null after adding a problem naming the path.
     */
    public static EventType read(Object raw, String path, Problems problems) {
        if ("none".equals(Values.string(raw))) {
            return NONE;
        }
        if (!(raw instanceof Map<?, ?> map) || map.size() != 1
                || !FilterReader.OPERANDS.contains(String.valueOf(map.keySet().iterator().next()))) {
            problems.add(path + " must be " + SHAPE + ", got " + Values.render(raw));
            return null;
        }
        String key = String.valueOf(map.keySet().iterator().next());
        Filter.Operand on = FilterReader.operand(key, map.get(key), org.sluice.edge.settings.Paths.child(path, key), problems);
        return on == null ? null : new EventType(on);
    }

    /** The header it is read from, when it is read from one (a source stores that header). */
    public Optional<String> headerName() {
        return from instanceof Filter.Operand.Header h ? Optional.of(h.name()) : Optional.empty();
    }

    /** True when hooks have no event type. */
    public boolean isNone() {
        return from == null;
    }

    /** The event type of {@code hook}, or null when it has none. */
    public String of(HookFacts hook) {
        if (from == null) {
            return null;
        }
        String value;
        if (from instanceof Filter.Operand.Header h) {
            value = hook.header(h.name());
        } else {
            JsonNode root = hook.json();
            JsonNode at = root == null ? null : ((Filter.Operand.Json) from).path().find(root);
            value = at != null && at.isValueNode() && !at.isNull() && !at.isBinary() ? at.asText() : null;
        }
        return value == null || value.length() > MAX_LENGTH ? null : value;
    }

    /** As configured: {@code {header: "X-GitHub-Event"}}, {@code {json: "$.type"}} or {@code none}. */
    public String text() {
        return from == null ? "none" : "{" + from.text() + "}";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EventType e && java.util.Objects.equals(from, e.from);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hashCode(from);
    }

    @Override
    public String toString() {
        return text();
    }
}
