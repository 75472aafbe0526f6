package org.sluice.edge.store.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.sluice.edge.store.AuditRecord;
import org.sluice.edge.store.DisabledDestination;

/**
 * The records of the control topic ({@code <prefix>.control}, compacted, one partition):
 * their keys and JSON values. docs/fleet-log.md, "Control state".
 *
 * <pre>
 *   key                                   value                                     deleted by
 *   pause/&lt;destination&gt;                  {"paused":true,"time_ms":N}               a tombstone (resume)
 *   disabled/&lt;destination&gt;               {"time_ms":N,"last_error":"..."}          a tombstone (enable)
 *   failing/&lt;destination&gt;                {"since_ms":N}: the fleet's run of failures  a tombstone (a success
 *                                          began then (KafkaControlState)              on any node; a disable
 *                                                                                      or an enable)
 *   override/&lt;tenant&gt;                    the limit, as Limit.toMap()               a tombstone (delete)
 *   signing/&lt;destination&gt;                its signing keys added at runtime          never (replaced by
 *                                          (opaque here: delivery's SigningRotation;   the next rotation)
 *                                          it holds secrets, never logged)
 *   audit/&lt;time_ms&gt;/&lt;writer&gt;/&lt;n&gt;          {"time_ms","actor","action","tenant",     never: each key is
 *                                          "before","after"}                         written once
 * </pre>
 * {@code time_ms} in an audit key is 13 decimal digits, zero-padded; {@code writer} is a
 * random id drawn by each {@link KafkaControlState} when it opens and {@code n} its counter,
 * so no two audit records share a key and compaction keeps every one.
 *
 * <p>Stateless.
 */
final class ControlRecords {

    /**
     * The kinds of record, each known by its key's prefix (the table above): one table for
     * writing a key ({@link #key}) and for telling a key read back ({@link #of}).
     */
    enum Kind {
        PAUSE("pause/"),
        DISABLE("disabled/"),
        FAILING("failing/"),
        OVERRIDE("override/"),
        SIGNING("signing/"),
        /** Keyed by time, writer and counter ({@link ControlRecords#auditKey}), not by a destination or tenant. */
        AUDIT("audit/");

        private final String prefix;

        Kind(String prefix) {
            this.prefix = prefix;
        }

        /** The key of this kind's record about {@code name}: a destination, or a tenant for an override. */
        String key(String name) {
            return prefix + name;
        }

        /** The destination or tenant {@code key} (a key of this kind) names. */
        String nameIn(String key) {
            return key.substring(prefix.length());
        }

        /**
         * The kind of record {@code key} is, or null: no prefix of the table, or the prefix
         * alone of a kind that names a destination or tenant (every kind but {@code AUDIT}).
         */
        static Kind of(String key) {
            if (key == null) {
                return null;
            }
            for (Kind k : values()) {
                if (key.startsWith(k.prefix) && (k == AUDIT || key.length() > k.prefix.length())) {
                    return k;
                }
            }
            return null;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {
    };

    private ControlRecords() {
    }

    static String auditKey(long timeMillis, String writer, long n) {
        return Kind.AUDIT.prefix + String.format("%013d", Math.max(0, timeMillis)) + '/' + writer + '/' + n;
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] paused(long nowMillis) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("paused", true);
        value.put("time_ms", nowMillis);
        return json(value);
    }

    static byte[] disabled(DisabledDestination d) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("time_ms", d.atMillis());
        value.put("last_error", d.lastError());
        return json(value);
    }

    /** A disable record's value read back; throws {@link IllegalArgumentException} when it is not one. */
    static DisabledDestination disabled(byte[] value) {
        Map<String, Object> m = map(value);
        if (!(m.get("time_ms") instanceof Number time) || !(m.get("last_error") instanceof String error)) {
            throw new IllegalArgumentException("a disable record needs a numeric time_ms and a string last_error");
        }
        return new DisabledDestination(time.longValue(), error);
    }

    static byte[] failing(long sinceMillis) {
        return json(Map.of("since_ms", sinceMillis));
    }

    /** A failing record's start read back; throws {@link IllegalArgumentException} when it is not one. */
    static long failingSince(byte[] value) {
        if (!(map(value).get("since_ms") instanceof Number since) || since.longValue() < 0) {
            throw new IllegalArgumentException("a failing record needs a since_ms of at least 0");
        }
        return since.longValue();
    }

    static byte[] audit(AuditRecord r) {
        return json(r.toStoredMap());
    }

    /** An audit record's value read back; throws {@link IllegalArgumentException} when it is not one. */
    static AuditRecord audit(byte[] value) {
        return AuditRecord.fromStoredMap(map(value));
    }

    /** A JSON object's bytes as a map; throws {@link IllegalArgumentException} when they are not one. */
    static Map<String, Object> map(byte[] value) {
        try {
            Map<String, Object> m = JSON.readValue(value, MAP);
            if (m == null) {
                throw new IllegalArgumentException("null where a JSON object belongs");
            }
            return m;
        } catch (IOException e) {
            throw new IllegalArgumentException("not a JSON object: " + e.getMessage(), e);
        }
    }

    static byte[] json(Object value) {
        try {
            return JSON.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render " + value + " as JSON", e);
        }
    }
}
