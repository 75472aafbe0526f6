package org.sluice.edge.admin;

/** Tenant ids the admin API accepts: {@code [A-Za-z0-9_-]{1,64}}. */
final class TenantIds {

    static final int MAX_LENGTH = 64;

    private TenantIds() {
    }

    static boolean valid(String tenant) {
        int n = tenant.length();
        if (n < 1 || n > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = tenant.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
