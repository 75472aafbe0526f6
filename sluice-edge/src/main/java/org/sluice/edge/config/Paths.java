package org.sluice.edge.config;

/** Key paths as they appear in messages: {@code rate_limits.tenants.acme}, {@code http.trusted_proxies[0]}. */
final class Paths {

    private Paths() {
    }

    static String child(String parent, String key) {
        return parent.isEmpty() ? key : parent + "." + key;
    }

    static String index(String parent, int i) {
        return parent + "[" + i + "]";
    }
}
