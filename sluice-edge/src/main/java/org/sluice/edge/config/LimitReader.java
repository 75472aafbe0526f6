package org.sluice.edge.config;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.sluice.core.InvalidLimitException;
import org.sluice.core.Limit;
import org.sluice.edge.settings.Paths;
import org.sluice.edge.settings.Problems;
import org.sluice.edge.settings.Section;
import org.sluice.edge.settings.Substituted;
import org.sluice.edge.settings.Values;

/**
 * The one place where config text becomes a {@link Limit}: through {@link Limit#parse},
 * the same parser the admin API uses, so a limit means the same in a file and in a PUT.
 * Its messages are placed under the key path ({@link InvalidLimitException#messageAt}).
 */
final class LimitReader {

    /**
     * A tenant's share of the store's body bytes: read beside its limit ({@link #storedShare}),
     * not part of the {@link Limit}, which counts rates and what is in flight.
     */
    static final String MAX_STORED_BYTES = "max_stored_bytes";

    /** {@code per_ip} and {@code node} count requests only. */
    static final List<String> RATE_AND_BURST = List.of(Limit.RATE, Limit.BURST);

    private LimitReader() {
    }

    /**
     * The limit at {@code path}, or empty when absent (null) or invalid (a problem is
     * recorded).
     *
     * @param allowed the keys this limit may carry ({@link Limit#FIELDS} for tenant limits)
     */
    @SuppressWarnings("unchecked")
    static Optional<Limit> read(Problems problems, String path, Object raw, long instanceMaxBodyBytes,
                                List<String> allowed) {
        if (raw == null) {
            return Optional.empty();
        }
        if (!(raw instanceof Map<?, ?>)) {
            problems.add(path + " must be a mapping such as {rate: 50, burst: 100}, got " + Values.render(raw));
            return Optional.empty();
        }
        Map<String, Object> attrs = new LinkedHashMap<>();
        boolean unknown = false;
        for (Map.Entry<String, Object> e : ((Map<String, Object>) raw).entrySet()) {
            if (!allowed.contains(e.getKey())) {
                problems.add(Section.unknownKey(Paths.child(path, e.getKey()), allowed));
                unknown = true;
            }
            if (!MAX_STORED_BYTES.equals(e.getKey())) {
                attrs.put(e.getKey(), numeric(e.getValue()));
            }
        }
        if (unknown) {
            return Optional.empty();
        }
        try {
            return Optional.of(Limit.parse(attrs, instanceMaxBodyBytes));
        } catch (InvalidLimitException e) {
            problems.add(e.isUnknownField()
                    ? Section.unknownKey(Paths.child(path, e.field()), new ArrayList<>(Limit.FIELDS))
                    : withSource(e.messageAt(path), (Map<String, Object>) raw, e.field()));
            return Optional.empty();
        }
    }

    /**
     * The {@code max_stored_bytes} of the tenant limit at {@code path}: empty when the limit or
     * the key is absent, or when the value is not an integer of at least 1 (a problem naming
     * the key path and the value is recorded).
     */
    static OptionalLong storedShare(Problems problems, String path, Object raw) {
        if (!(raw instanceof Map<?, ?> map) || !map.containsKey(MAX_STORED_BYTES)) {
            return OptionalLong.empty();
        }
        Object value = map.get(MAX_STORED_BYTES);
        BigInteger bytes = value == null ? null : Values.integer(value);
        if (bytes == null || bytes.signum() <= 0 || bytes.bitLength() > 63) {
            problems.add(Paths.child(path, MAX_STORED_BYTES) + " must be an integer of at least 1, got "
                    + Values.render(value));
            return OptionalLong.empty();
        }
        return OptionalLong.of(bytes.longValue());
    }

    /** A string from a variable that reads as a number becomes that number; anything else stays as is. */
    private static Object numeric(Object v) {
        if (v instanceof Substituted s) {
            var i = Values.integer(s);
            if (i != null && i.bitLength() < 63) {
                return i.longValue();
            }
            Double d = Values.number(s);
            return d != null ? (Object) d : s.value();
        }
        return v;
    }

    /** Appends where a value came from when it was substituted, as every other message does. */
    private static String withSource(String message, Map<String, Object> raw, String field) {
        Object original = raw.get(field);
        if (original instanceof Substituted s) {
            return message + " (from " + s.expression() + ")";
        }
        return message;
    }
}
