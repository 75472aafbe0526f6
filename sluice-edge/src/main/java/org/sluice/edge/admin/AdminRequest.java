package org.sluice.edge.admin;

import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One request to the admin API, independent of the HTTP server that received it.
 *
 * @param method  the HTTP method, upper case ({@code GET}, {@code PUT}, ...)
 * @param path    the path without the query string, not percent-decoded ({@code /v1/rate-limits})
 * @param query   the raw query string without {@code ?}, or empty
 * @param headers request headers; names are matched case-insensitively (a repeated
 *                header keeps its first value)
 * @param body    the body bytes (empty when none)
 */
public record AdminRequest(String method, String path, String query, Map<String, String> headers, byte[] body) {

    public AdminRequest {
        method = Objects.requireNonNull(method, "method").toUpperCase(Locale.ROOT);
        Objects.requireNonNull(path, "path");
        query = query == null ? "" : query;
        TreeMap<String, String> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        if (headers != null) {
            headers.forEach(byName::putIfAbsent);
        }
        headers = Collections.unmodifiableMap(byName);
        body = body == null ? new byte[0] : body;
    }

    /**
     * Builds a request from a request target such as {@code /v1/hooks?after=x&limit=5}.
     */
    public static AdminRequest of(String method, String target, Map<String, String> headers, byte[] body) {
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        String query = q < 0 ? "" : target.substring(q + 1);
        return new AdminRequest(method, path, query, headers, body);
    }

    /** The header's value, or null. */
    public String header(String name) {
        return headers.get(name);
    }
}
