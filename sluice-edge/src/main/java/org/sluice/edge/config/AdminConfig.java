package org.sluice.edge.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code admin:} the admin listener ({@code /metrics} and the {@code /v1} API).
 *
 * @param listen              {@code admin.listen}, default {@code 127.0.0.1:9090}
 * @param token               {@code admin.token}: the bearer token for {@code /v1}; empty (the
 *                            default) means "generate one into {@code <data_dir>/admin.token}"
 * @param metricsRequireToken {@code admin.metrics_require_token}, default false: when true
 *                            {@code GET /metrics} needs the token too
 * @param readTimeoutMs       {@code admin.read_timeout_ms}, default 10000: a request must arrive
 *                            whole this long after its first byte (else 408, or a silent close
 *                            when not even its headers came)
 * @param idleTimeoutMs       {@code admin.idle_timeout_ms}, default 60000: a connection with no
 *                            request in progress is closed after this long
 * @param maxConnections      {@code admin.max_connections}, default 32: connections open at once;
 *                            one more is closed as soon as it is accepted
 * @param workers             {@code admin.workers}, default 2: threads of the admin executor, which
 *                            runs {@code /v1} and {@code /metrics} apart from the ingest workers
 * @param tls                 {@code admin.tls}: TLS on the admin listener, the keys of {@code http.tls}
 * @param allowedHosts        {@code admin.allowed_hosts}, default empty: host names a request's
 *                            {@code Host} may carry besides IP literals, {@code localhost} and the
 *                            listen host ({@code "*"}: any); others get 421
 */
public record AdminConfig(HostPort listen, String token, boolean metricsRequireToken, long readTimeoutMs,
                          long idleTimeoutMs, int maxConnections, int workers, Optional<TlsConfig> tls,
                          List<String> allowedHosts) {

    public static final HostPort DEFAULT_LISTEN = new HostPort("127.0.0.1", 9090);
    public static final long DEFAULT_READ_TIMEOUT_MS = 10_000L;
    public static final long DEFAULT_IDLE_TIMEOUT_MS = 60_000L;
    public static final int DEFAULT_MAX_CONNECTIONS = 32;
    public static final int DEFAULT_WORKERS = 2;

    public AdminConfig {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(tls, "tls");
        allowedHosts = List.copyOf(allowedHosts);
    }

    /** Only the default {@code Host} names allowed. */
    public AdminConfig(HostPort listen, String token, boolean metricsRequireToken, long readTimeoutMs,
                       long idleTimeoutMs, int maxConnections, int workers, Optional<TlsConfig> tls) {
        this(listen, token, metricsRequireToken, readTimeoutMs, idleTimeoutMs, maxConnections, workers, tls, List.of());
    }

    /** The listener settings at their defaults, plain HTTP. */
    public AdminConfig(HostPort listen, String token, boolean metricsRequireToken) {
        this(listen, token, metricsRequireToken, DEFAULT_READ_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS,
                DEFAULT_MAX_CONNECTIONS, DEFAULT_WORKERS, Optional.empty());
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
                + ", metricsRequireToken=" + metricsRequireToken + ", readTimeoutMs=" + readTimeoutMs
                + ", idleTimeoutMs=" + idleTimeoutMs + ", maxConnections=" + maxConnections + ", workers=" + workers
                + ", tls=" + tls.isPresent() + ", allowedHosts=" + allowedHosts + "]";
    }
}
