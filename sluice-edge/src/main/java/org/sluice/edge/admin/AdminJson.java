package org.sluice.edge.admin;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sluice.core.EffectiveLimit;
import org.sluice.core.Limit;
import org.sluice.core.TenantLimits;
import org.sluice.edge.store.AuditRecord;
import org.sluice.edge.store.HookSummary;

/** The admin API's JSON shapes, rendered from maps in a fixed key order. */
final class AdminJson {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private AdminJson() {
    }

    static byte[] encode(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode admin response: " + e.getMessage(), e);
        }
    }

    /** The body as a JSON object's fields, or null when it is not one JSON object. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> readObject(byte[] body) {
        try {
            JsonNode node = MAPPER.readTree(body);
            if (node == null || !node.isObject()) {
                return null;
            }
            return MAPPER.convertValue(node, Map.class);
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * What is wrong with a request body that must be one JSON object with fields from
     * {@code known} only, for its 400 answer: {@code shape} when {@code fields} is null (the
     * body was no JSON object, {@link #readObject}), else the first field not known,
     * {@link #shortened}, and the known ones in order; null when nothing is wrong.
     */
    static String fieldsProblem(Map<String, Object> fields, List<String> known, String shape) {
        if (fields == null) {
            return shape;
        }
        for (String field : fields.keySet()) {
            if (!known.contains(field)) {
                String last = known.get(known.size() - 1);
                String others = String.join(", ", known.subList(0, known.size() - 1));
                return "unknown field " + shortened(field) + "; the fields are " + others + " and " + last;
            }
        }
        return null;
    }

    /** A text from a request as a message quotes it: its first 80 characters, and {@code ...} when there were more. */
    static String shortened(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "...";
    }

    static byte[] error(String code) {
        return encode(Map.of("error", code));
    }

    static byte[] error(String code, String message) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("error", code);
        out.put("message", message);
        return encode(out);
    }

    /** {@code {"error":"payload_too_large","limit":N}}. */
    static byte[] tooLarge(int limit) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("error", "payload_too_large");
        out.put("limit", limit);
        return encode(out);
    }

    static Map<String, Object> limit(Limit limit) {
        return limit == null ? null : limit.toMap();
    }

    /** {@code {"tenant","limit","source"}}. */
    static Map<String, Object> effective(String tenant, EffectiveLimit effective) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenant", tenant);
        out.put("limit", limit(effective.limit()));
        out.put("source", effective.source().wireName());
        return out;
    }

    /** {@code {"default", "tenants":[{"tenant","limit","source"}]}}. */
    static Map<String, Object> listing(TenantLimits.Listing listing) {
        List<Map<String, Object>> tenants = new ArrayList<>(listing.tenants().size());
        for (TenantLimits.Entry e : listing.tenants()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("tenant", e.tenant());
            row.put("limit", limit(e.limit()));
            row.put("source", e.source().wireName());
            tenants.add(row);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("default", limit(listing.defaultLimit()));
        out.put("tenants", tenants);
        return out;
    }

    static Map<String, Object> audit(List<AuditRecord> records) {
        List<Map<String, Object>> rows = new ArrayList<>(records.size());
        for (AuditRecord r : records) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("time", time(r.timeMillis()));
            row.put("actor", r.actor());
            row.put("action", r.action());
            row.put("tenant", r.tenant());
            row.put("before", r.before());
            row.put("after", r.after());
            rows.add(row);
        }
        return Map.of("audit", rows);
    }

    static Map<String, Object> hook(HookReader.Hook hook) {
        Map<String, Object> out = hookFields(hook.id(), hook.tenant(), hook.source(), hook.receivedAtMillis(), hook.headers());
        out.put("body_base64", Base64.getEncoder().encodeToString(hook.body()));
        return out;
    }

    /** The fields every view of a hook has, in order, before its body. */
    private static Map<String, Object> hookFields(String id, String tenant, String source, long receivedAtMillis,
                                                  Map<String, String> headers) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", id);
        out.put("tenant", tenant);
        out.put("source", source);
        out.put("received_at", time(receivedAtMillis));
        out.put("headers", shown(headers));
        return out;
    }

    /** What {@link #shown} puts in place of a credential's value. */
    static final String REDACTED = "[redacted]";
    /** Headers that carry credentials, lower-case: their values are never shown. */
    static final java.util.Set<String> CREDENTIAL_HEADERS = java.util.Set.of("authorization", "proxy-authorization",
            "cookie", "set-cookie", "x-api-key", "api-key", "x-auth-token");

    /**
     * Stored headers as the admin API shows them, in arrival order: the value of a header
     * that carries credentials ({@link #CREDENTIAL_HEADERS}, any case) is {@value #REDACTED}.
     * Such a header is stored only when something needs it ({@code store_headers}).
     */
    static Map<String, String> shown(Map<String, String> headers) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> h : headers.entrySet()) {
            boolean secret = CREDENTIAL_HEADERS.contains(h.getKey().toLowerCase(java.util.Locale.ROOT));
            out.put(h.getKey(), secret ? REDACTED : h.getValue());
        }
        return out;
    }

    static Map<String, Object> page(HookReader.Page page) {
        List<Map<String, Object>> hooks = new ArrayList<>(page.hooks().size());
        for (HookReader.Hook h : page.hooks()) {
            hooks.add(hook(h));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("hooks", hooks);
        out.put("next", page.next());
        return out;
    }

    /** A newest-first listing: each hook as {@link #hook} shows it, {@code body_bytes} in place of the body. */
    static Map<String, Object> summaries(HookSummary.Page page) {
        List<Map<String, Object>> hooks = new ArrayList<>(page.hooks().size());
        for (HookSummary h : page.hooks()) {
            Map<String, Object> out = hookFields(h.id(), h.tenant(), h.source(), h.receivedAtMillis(), h.headers());
            out.put("body_bytes", h.bodyBytes());
            hooks.add(out);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("hooks", hooks);
        out.put("next", page.next());
        return out;
    }

    static Map<String, Object> admission(AdmissionState state) {
        List<Map<String, Object>> tables = new ArrayList<>(state.tables().size());
        for (AdmissionState.Table t : state.tables()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", t.name());
            row.put("rows", t.rows());
            row.put("swept_total", t.sweptTotal());
            tables.add(row);
        }
        Map<String, Object> queue = new LinkedHashMap<>();
        queue.put("hooks", state.queue().hooks());
        queue.put("bytes", state.queue().bytes());
        queue.put("max_hooks", state.queue().maxHooks());
        queue.put("max_bytes", state.queue().maxBytes());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scope", state.scope());
        out.put("shadow", state.shadow());
        out.put("tables", tables);
        out.put("queue", queue);
        out.put("arena", state.arena());
        out.put("fleet", state.fleet());
        return out;
    }

    /** RFC 3339 UTC with milliseconds: {@code 2026-12-02T10:50:33.123Z}. */
    static String time(long epochMillis) {
        return TIME.format(Instant.ofEpochMilli(epochMillis));
    }
}
