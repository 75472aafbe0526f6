package org.sluice.edge.settings;

/** Key paths as they appear in messages: {@code rate_limits.tenants.acme}, {@code http.trusted_proxies[0]}. */
public final class Paths {

    private Paths() {
    }

    public static String child(String parent, String key) {
        return parent.isEmpty() ? key : parent + "." + key;
    }

    public static String index(String parent, int i) {
        return parent + "[" + i + "]";
    }
}
