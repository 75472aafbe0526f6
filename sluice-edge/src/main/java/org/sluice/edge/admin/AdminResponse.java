package org.sluice.edge.admin;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The admin API's answer: a status, response headers (at least {@code Content-Type} when
 * there is a body) and the body bytes (JSON, or empty for 204).
 */
public record AdminResponse(int status, Map<String, String> headers, byte[] body) {

    static final String JSON = "application/json";

    public AdminResponse {
        headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        body = body == null ? new byte[0] : body;
    }

    /** A JSON answer; {@code json} is the encoded body. */
    static AdminResponse json(int status, byte[] json) {
        return new AdminResponse(status, Map.of("Content-Type", JSON), json);
    }

    /** {@code 204 No Content}. */
    static AdminResponse noContent() {
        return new AdminResponse(204, Map.of(), new byte[0]);
    }

    /** This response with one more header. */
    AdminResponse withHeader(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new AdminResponse(status, more, body);
    }

    /** The body as UTF-8 text (for logs and tests). */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
