package org.sluice.edge.config;

/**
 * The one rule for a tenant id, applied wherever one is read: {@code rate_limits.tenants}
 * and {@code sources.*.tenant} in the config, the tenant segment of an ingest URL under
 * {@code routing: tenant_path}, and {@code /v1/tenants/{tenant}/rate-limit} on the admin
 * API. A tenant the ingest path routes, charges and stores is therefore always one the
 * admin API can read, set and reset (docs/configuration.md, "Tenant ids").
 *
 * <p>The rule: 1 to {@value #MAX_LENGTH} characters from {@code A-Z a-z 0-9 . _ -}, the
 * first not a dot. Dots are allowed because domain-like tenants ({@code acme.eu}) are
 * common; a leading dot is not, because {@code .} and {@code ..} are dot segments that
 * HTTP clients and proxies remove from a URL, so such a tenant could be routed by a raw
 * client yet never be named in an admin URL. The id is compared as sent: no
 * percent-decoding, no case folding.
 */
public final class TenantId {

    /** Longest tenant id, in characters. */
    public static final int MAX_LENGTH = 64;
    /** The rule in words, for configuration error messages. */
    public static final String RULE = "1 to " + MAX_LENGTH + " characters from A-Z a-z 0-9 . _ -, not starting with a dot";

    private TenantId() {
    }

    /** True when {@code id} is a tenant id. */
    public static boolean valid(String id) {
        int n = id.length();
        if (n < 1 || n > MAX_LENGTH || id.charAt(0) == '.') {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = id.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
