package org.sluice.fleet;

import java.util.Objects;

/**
 * Redis key names. A tenant's keys share the hash tag {@code {tenant}}, so one admission
 * touches one Redis Cluster slot:
 * <pre>
 *   sluice:{acme}:h                 hook bucket (GCRA time, us)
 *   sluice:{acme}:b                 byte bucket (GCRA time, us)
 *   sluice:{acme}:d:<source>:<key>  dedupe claim ("p:<token>" pending, "c:<hook id>" committed)
 *   sluice:nodes                    live nodes (sorted set, score = expiry ms)
 *   sluice:pace:{crm}               a destination's pacing bucket (GCRA time, us)
 * </pre>
 *
 * <h2>Why two calls can never share a key</h2>
 * Tenant and source ids are {@linkplain #checkId checked}: 1 to {@value #ID_MAX} characters
 * of {@code A-Z a-z 0-9 . _ -}, so neither holds a separator ({@code :}, <code>{</code>,
 * <code>}</code>). A key then reads back one way only: the tenant is everything up to the
 * first <code>}</code>, the kind letter follows, the source runs to the next {@code :},
 * and the event key is the whole rest (any string: it is last, so it needs no rule).
 * Without the check a caller's {@code source = "a:b", key = "c"} and {@code source = "a",
 * key = "b:c"} were one claim, and tenant <code>a}:d:b</code> kept its hook bucket at
 * <code>sluice:{a}:d:b}:h</code>, a claim key of tenant {@code a}. The rule is a superset
 * of the ids the edge accepts (its source ids, tenant ids and tenant routes), so the keys
 * of existing deployments keep their names. An event key is stored as its UTF-8 bytes,
 * as the node-local dedupe index stores it (an unpaired surrogate is written as {@code ?}
 * by both).
 */
final class Keys {

    public static final String NODES = "sluice:nodes";

    /** Longest tenant or source id. */
    static final int ID_MAX = 128;

    private Keys() {
    }

    public static String hooks(String tenant) {
        return "sluice:{" + checkId("tenant", tenant) + "}:h";
    }

    public static String bytes(String tenant) {
        return "sluice:{" + checkId("tenant", tenant) + "}:b";
    }

    public static String pace(String destination) {
        return "sluice:pace:{" + checkId("destination", destination) + "}";
    }

    public static String dedupe(String tenant, String source, String key) {
        Objects.requireNonNull(key, "dedupeKey");
        return "sluice:{" + checkId("tenant", tenant) + "}:d:" + checkId("source", source) + ":" + key;
    }

    /**
     * Returns {@code id} when it is 1 to {@value #ID_MAX} characters of {@code A-Z a-z 0-9
     * . _ -}; else throws {@link IllegalArgumentException} naming {@code field} and the value.
     */
    public static String checkId(String field, String id) {
        if (!validId(id)) {
            throw new IllegalArgumentException(field + " must be 1 to " + ID_MAX
                    + " characters of A-Z a-z 0-9 . _ -, got " + quote(id));
        }
        return id;
    }

    static boolean validId(String id) {
        if (id == null || id.isEmpty() || id.length() > ID_MAX) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** The value in double quotes, non-printable characters as {@code \\uXXXX}, long ones cut. */
    private static String quote(String id) {
        if (id == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder("\"");
        int n = Math.min(id.length(), ID_MAX + 8);
        for (int i = 0; i < n; i++) {
            char c = id.charAt(i);
            if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (n < id.length()) {
            out.append("...");
        }
        return out.append('"').toString();
    }
}
