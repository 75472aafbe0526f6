package org.sluice.fleet.internal;

/**
 * Redis key names. A tenant's keys share the hash tag {@code {tenant}}, so one admission
 * touches one Redis Cluster slot:
 * <pre>
 *   sluice:{acme}:h                 hook bucket (GCRA time, us)
 *   sluice:{acme}:b                 byte bucket (GCRA time, us)
 *   sluice:{acme}:d:<source>:<key>  dedupe claim ("p:<token>" pending, "c:<hook id>" committed)
 *   sluice:nodes                    live nodes (sorted set, score = expiry ms)
 * </pre>
 */
public final class Keys {

    public static final String NODES = "sluice:nodes";

    private Keys() {
    }

    public static String hooks(String tenant) {
        return "sluice:{" + tenant + "}:h";
    }

    public static String bytes(String tenant) {
        return "sluice:{" + tenant + "}:b";
    }

    public static String dedupe(String tenant, String source, String key) {
        return "sluice:{" + tenant + "}:d:" + source + ":" + key;
    }
}
