package org.sluice.edge.route;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.function.Function;

/**
 * What a filter looks at for one hook: its headers and its body, parsed as JSON at most
 * once, and only when a {@code json} predicate is evaluated. Not thread-safe: one per hook,
 * used by the thread that commits it.
 *
 * <p>The parse is bounded: the body is at most the source's body limit, and nesting deeper
 * than {@value #MAX_DEPTH} makes it "not JSON" (a {@code json} predicate then matches
 * nothing), as does any other parse failure.
 */
public final class HookFacts {

    /** Deepest nesting of a body a {@code json} predicate reads. */
    public static final int MAX_DEPTH = 64;

    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
            .build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS); // "{}x" is not JSON

    private final Function<String, String> headers;
    private final byte[] body;
    private final EventType eventType;
    private JsonNode json;
    private boolean parsed;
    private String type;
    private boolean typed;

    /**
     * @param headers a header's (first) value by name, matched case-insensitively; null when absent
     * @param body    the body as received
     */
    public HookFacts(Function<String, String> headers, byte[] body) {
        this(headers, body, EventType.NONE);
    }

    /**
     * @param headers   a header's (first) value by name, matched case-insensitively; null when absent
     * @param body      the body as received
     * @param eventType where the source's hooks name their event type
     */
    public HookFacts(Function<String, String> headers, byte[] body, EventType eventType) {
        this.headers = headers;
        this.body = body;
        this.eventType = eventType;
    }

    /** The hook's event type, or null when it has none; found once. */
    public String eventType() {
        if (!typed) {
            typed = true;
            type = eventType.of(this);
        }
        return type;
    }

    String header(String name) {
        return headers.apply(name);
    }

    /** The body as JSON, or null when it is not JSON (or nests too deep). */
    JsonNode json() {
        if (!parsed) {
            parsed = true;
            try {
                JsonNode root = JSON.readTree(body);
                json = root == null || root.isMissingNode() ? null : root; // an empty body holds no JSON
            } catch (IOException | RuntimeException notJson) {
                json = null;
            }
        }
        return json;
    }
}
