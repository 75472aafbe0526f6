package org.sluice.edge.config;

import java.util.Objects;

/**
 * {@code admin:} the admin listener ({@code /metrics} and the {@code /v1} API).
 *
 * @param listen              {@code admin.listen}, default {@code 127.0.0.1:9090}
 * @param token               {@code admin.token}: the bearer token for {@code /v1}; empty (the
 *                            default) means "generate one into {@code <data_dir>/admin.token}"
 * @param metricsRequireToken {@code admin.metrics_require_token}, default false: when true
 *                            {@code GET /metrics} needs the token too
 */
public record AdminConfig(HostPort listen, String token, boolean metricsRequireToken) {

    public static final HostPort DEFAULT_LISTEN = new HostPort("127.0.0.1", 9090);

    public AdminConfig {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(token, "token");
    }

    public static AdminConfig defaults() {
        return new AdminConfig(DEFAULT_LISTEN, "", false);
    }

    /** True when a token is configured (otherwise one is generated at first boot). */
    public boolean hasToken() {
        return !token.isEmpty();
    }

    /** Never prints the token. */
    @Override
    public String toString() {
        return "AdminConfig[listen=" + listen + ", token=" + (hasToken() ? "<set>" : "<generated>")
                + ", metricsRequireToken=" + metricsRequireToken + "]";
    }
}
