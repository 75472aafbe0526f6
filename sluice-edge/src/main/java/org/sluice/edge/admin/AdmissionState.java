package org.sluice.edge.admin;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of the node's admission machinery for {@code GET /v1/admission}. The server
 * builds one per request from its live parts; every number is read without locks, so
 * the figures are each exact but not taken at one instant.
 *
 * @param scope  {@code rate_limits.scope}: {@code node}, {@code host} or {@code fleet}
 * @param shadow {@code rate_limits.shadow}
 * @param tables one row per limiter table ({@code per_ip}, {@code node}, {@code tenant}, ...)
 * @param queue  what the intake batchers hold
 * @param arena  the shared arena's statistics when scope is {@code host}, else null
 * @param fleet  the fleet's breaker state when scope is {@code fleet}, else null
 */
public record AdmissionState(String scope, boolean shadow, List<Table> tables, Queue queue,
                             Map<String, Object> arena, Map<String, Object> fleet) {

    /**
     * One limiter table.
     *
     * @param name       {@code per_ip}, {@code node}, {@code source_bytes}, {@code tenant}, ...
     * @param rows       rows (buckets) held now
     * @param sweptTotal rows removed by sweeps since boot
     */
    public record Table(String name, long rows, long sweptTotal) {
        public Table {
            Objects.requireNonNull(name, "name");
        }
    }

    /**
     * Intake occupancy.
     *
     * @param hooks    hooks held (buffered and in flight)
     * @param bytes    body bytes held
     * @param maxHooks {@code intake.max_queue}
     * @param maxBytes {@code intake.max_queue_bytes}
     */
    public record Queue(long hooks, long bytes, long maxHooks, long maxBytes) {
    }

    public AdmissionState {
        Objects.requireNonNull(scope, "scope");
        tables = List.copyOf(tables);
        Objects.requireNonNull(queue, "queue");
        arena = arena == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(arena));
        fleet = fleet == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(fleet));
    }
}
