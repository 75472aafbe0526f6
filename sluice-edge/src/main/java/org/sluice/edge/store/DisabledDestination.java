package org.sluice.edge.store;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A destination the dispatcher disabled because it failed without a single success for its
 * {@code breaker.disable_after_seconds}: nothing is sent to it until an operator enables it.
 *
 * @param atMillis  when it was disabled (epoch ms, the store's wall clock)
 * @param lastError what its last failed attempt ended with ({@code HTTP 503}, {@code connect refused}, ...)
 */
public record DisabledDestination(long atMillis, String lastError) {

    /** The longest last error kept, in characters; a longer one is cut there. */
    public static final int MAX_ERROR_CHARS = 1024;
    /** Times as the admin API writes them: UTC to the millisecond. */
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    public DisabledDestination {
        Objects.requireNonNull(lastError, "lastError");
        if (lastError.length() > MAX_ERROR_CHARS) {
            lastError = lastError.substring(0, MAX_ERROR_CHARS);
        }
    }

    /** {@code {"at": time, "last_error": text}}: how the admin API and the audit show a disable. */
    public Map<String, Object> toMap() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("at", time(atMillis));
        out.put("last_error", lastError);
        return out;
    }

    /**
     * {@code {"destination": name, "disabled": toMap() or null}}, a new map: the before and
     * after of the audit records of a disable (by the dispatcher) and an enable (by an operator).
     */
    public static Map<String, Object> auditMap(String destination, DisabledDestination disabled) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("destination", destination);
        out.put("disabled", disabled == null ? null : disabled.toMap());
        return out;
    }

    /** {@code epochMillis} as the admin API writes times ({@code 2026-12-07T04:10:00.000Z}). */
    public static String time(long epochMillis) {
        return TIME.format(Instant.ofEpochMilli(epochMillis));
    }
}
