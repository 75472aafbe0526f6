package org.sluice.edge.config;

import java.util.Objects;
import java.util.Optional;

/**
 * {@code http:} the ingest listener.
 *
 * @param listen         {@code http.listen}, default {@code 0.0.0.0:8080}
 * @param prefix         {@code http.prefix}, default {@code /hooks}; normalized: starts with
 *                       {@code /}, no trailing {@code /}, and {@code ""} for the root
 * @param routing        {@code http.routing}, default {@link Routing#PATH}
 * @param maxBodyBytes   {@code http.max_body_bytes}, default 8000000: the largest body any
 *                       tenant may send, and the ceiling of a tenant's own {@code max_body_bytes}
 * @param trustedProxies {@code http.trusted_proxies}, default none: peers whose
 *                       {@code X-Forwarded-For} is believed
 * @param readTimeoutMs  {@code http.read_timeout_ms}, default 10000: a client that has not
 *                       sent its whole request by then is cut
 * @param maxHeaderBytes {@code http.max_header_bytes}, default 16384: larger headers get 431
 * @param reusePort      {@code http.reuse_port}, default false: bind with SO_REUSEPORT so
 *                       several processes share the port (with {@code rate_limits.scope: host})
 * @param refusedBody    {@code http.refused_body}, default {@link RefusedBody#CLOSE_IF_INCOMPLETE}: what a
 *                       {@code 429} answered before the body is read does with that body
 * @param tls            {@code http.tls}, default absent: plain HTTP
 * @param maxInflightBodyBytes {@code http.max_inflight_body_bytes}, default 268435456 (256 MiB):
 *                       the node's bound on body buffers held by requests in flight (from
 *                       the first body byte's buffer until the hook is answered); a body
 *                       that would pass it gets {@code 503 overload}. At least
 *                       {@code max_body_bytes}
 * @param maxConnectionsPerIp {@code http.max_connections_per_ip}, default 0 (off): the most
 *                       open ingest connections one peer address may hold; a connection
 *                       past it is answered {@code 503 overload} and closed
 * @param transport      {@code http.transport}, default {@link HttpTransport#AUTO}: the Netty
 *                       transport of both listeners and of the HTTP delivery client's loops
 */
public record HttpConfig(
        HostPort listen,
        String prefix,
        Routing routing,
        long maxBodyBytes,
        CidrSet trustedProxies,
        long readTimeoutMs,
        int maxHeaderBytes,
        boolean reusePort,
        RefusedBody refusedBody,
        Optional<TlsConfig> tls,
        long maxInflightBodyBytes,
        int maxConnectionsPerIp,
        HttpTransport transport) {

    public static final HostPort DEFAULT_LISTEN = new HostPort("0.0.0.0", 8080);
    public static final String DEFAULT_PREFIX = "/hooks";
    public static final long DEFAULT_MAX_BODY_BYTES = 8_000_000L;
    public static final long DEFAULT_READ_TIMEOUT_MS = 10_000L;
    public static final int DEFAULT_MAX_HEADER_BYTES = 16_384;
    public static final long DEFAULT_MAX_INFLIGHT_BODY_BYTES = 268_435_456L;
    /** {@code max_connections_per_ip: 0}: no cap. */
    public static final int NO_CONNECTION_CAP = 0;

    public HttpConfig {
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(trustedProxies, "trustedProxies");
        Objects.requireNonNull(refusedBody, "refusedBody");
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(transport, "transport");
    }

    /** This listener on {@code transport} (tests run the whole suite on each transport this way). */
    public HttpConfig withTransport(HttpTransport transport) {
        return new HttpConfig(listen, prefix, routing, maxBodyBytes, trustedProxies, readTimeoutMs, maxHeaderBytes,
                reusePort, refusedBody, tls, maxInflightBodyBytes, maxConnectionsPerIp, transport);
    }

    public static HttpConfig defaults() {
        return new HttpConfig(DEFAULT_LISTEN, DEFAULT_PREFIX, Routing.PATH, DEFAULT_MAX_BODY_BYTES,
                CidrSet.empty(), DEFAULT_READ_TIMEOUT_MS, DEFAULT_MAX_HEADER_BYTES, false, RefusedBody.CLOSE_IF_INCOMPLETE,
                Optional.empty(), DEFAULT_MAX_INFLIGHT_BODY_BYTES, NO_CONNECTION_CAP,
                HttpTransport.AUTO);
    }
}
