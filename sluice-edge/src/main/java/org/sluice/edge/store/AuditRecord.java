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
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("time", Instant.ofEpochMilli(timeMillis).toString());
        map.put("actor", actor);
        map.put("action", action);
        map.put("tenant", tenant);
        map.put("before", before);
        map.put("after", after);
        return map;
    }
}
