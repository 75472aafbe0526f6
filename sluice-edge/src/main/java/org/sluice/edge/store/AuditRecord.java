package org.sluice.edge.store;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One change to a tenant's rate-limit override, as recorded in the store.
 *
 * @param timeMillis wall-clock time of the change, epoch milliseconds
 * @param actor      who made it ({@code X-Sluice-Actor}, else {@code admin})
 * @param action     {@code put} or {@code delete}
 * @param tenant     whose override changed
 * @param before     the override before the change as JSON-shaped map ({@code Limit.toMap()}), or null: none
 * @param after      the override after the change, or null: none (after a delete)
 */
public record AuditRecord(long timeMillis, String actor, String action, String tenant,
                          Map<String, Object> before, Map<String, Object> after) {

    public static final String PUT = "put";
    public static final String DELETE = "delete";

    /** The record in the admin API's JSON shape: {@code time} (ISO-8601, UTC), actor, action, tenant, before, after. */
    public Map<String, Object> toMap() {
        return withTime("time", Instant.ofEpochMilli(timeMillis).toString());
    }

    /**
     * The record as both store kinds keep it (JSON): {@code time_ms} (epoch ms), actor,
     * action, tenant, before, after; {@link #fromStoredMap} reads it back.
     */
    public Map<String, Object> toStoredMap() {
        return withTime("time_ms", timeMillis);
    }

    /** The two forms differ only in how the time is written, first. */
    private Map<String, Object> withTime(String key, Object time) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put(key, time);
        map.put("actor", actor);
        map.put("action", action);
        map.put("tenant", tenant);
        map.put("before", before);
        map.put("after", after);
        return map;
    }

    /**
     * A record read back from {@link #toStoredMap}'s form: a numeric {@code time_ms} and a
     * string {@code action} are required (else {@link IllegalArgumentException}); an actor,
     * tenant, before or after of another type reads as null.
     */
    @SuppressWarnings("unchecked")
    public static AuditRecord fromStoredMap(Map<String, Object> m) {
        if (!(m.get("time_ms") instanceof Number time) || !(m.get("action") instanceof String action)) {
            throw new IllegalArgumentException("an audit record needs a numeric time_ms and a string action");
        }
        Object actor = m.get("actor");
        Object tenant = m.get("tenant");
        Object before = m.get("before");
        Object after = m.get("after");
        return new AuditRecord(time.longValue(), actor instanceof String a ? a : null, action,
                tenant instanceof String t ? t : null,
                before instanceof Map<?, ?> b ? (Map<String, Object>) b : null,
                after instanceof Map<?, ?> f ? (Map<String, Object>) f : null);
    }
}
