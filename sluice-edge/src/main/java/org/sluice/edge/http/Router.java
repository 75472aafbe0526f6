package org.sluice.edge.http;

import java.util.Map;
import org.sluice.edge.config.TenantId;

/**
 * Maps a request line onto a route: the probes, an ingest source (with its tenant), or
 * nothing. Immutable; shared by every connection.
 *
 * <p>Under {@code routing: path} the URL is {@code {prefix}/{source}} and the tenant is the
 * source's owner, or {@code default} for a shared source. Under {@code tenant_path} it is
 * {@code {prefix}/{tenant}/{source}}, the tenant a {@link TenantId} (else 404 not_found): an owned source answers only its owner (any other
 * tenant gets 404 unknown_source), a shared source answers any tenant.
 */
public final class Router {

    /** The tenant a shared source's hooks belong to under {@code routing: path}. */
    static final String DEFAULT_TENANT = "default";

    enum Kind { HEALTH, READY, INGEST, UNKNOWN_SOURCE, NOT_FOUND }

    record Route(Kind kind, SourceRoute source, String tenant) {
        static final Route HEALTH = new Route(Kind.HEALTH, null, null);
        static final Route READY = new Route(Kind.READY, null, null);
        static final Route UNKNOWN_SOURCE = new Route(Kind.UNKNOWN_SOURCE, null, null);
        static final Route NOT_FOUND = new Route(Kind.NOT_FOUND, null, null);
    }

    private final String prefix;
    private final boolean tenantPath;
    private final Map<String, SourceRoute> sources;

    /** @param prefix the path prefix, e.g. {@code /hooks} (no trailing slash; "" for none) */
    public Router(String prefix, boolean tenantPath, Map<String, SourceRoute> sources) {
        this.prefix = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        this.tenantPath = tenantPath;
        this.sources = Map.copyOf(sources);
    }

    /** One ingest URL path of {@code routing: path}, as the bytes of a request line's path. */
    record IngestPath(byte[] path, SourceRoute source, String tenant) {
    }

    /**
     * Under {@code routing: path}, every ingest path ({@code {prefix}/{source}}) with what
     * {@link #route} answers for it; empty under {@code tenant_path}. For the refusal fast path,
     * which matches a request line's bytes without building a string.
     */
    java.util.List<IngestPath> ingestPaths() {
        if (tenantPath) {
            return java.util.List.of();
        }
        java.util.List<IngestPath> paths = new java.util.ArrayList<>();
        sources.forEach((id, source) -> paths.add(new IngestPath(
                (prefix + "/" + id).getBytes(java.nio.charset.StandardCharsets.UTF_8), source,
                source.tenant() == null ? DEFAULT_TENANT : source.tenant())));
        return java.util.List.copyOf(paths);
    }

    Route route(String method, String uri) {
        int query = uri.indexOf('?');
        String path = query < 0 ? uri : uri.substring(0, query);
        if ("GET".equals(method) || "HEAD".equals(method)) {
            if (path.equals("/healthz")) {
                return Route.HEALTH;
            }
            if (path.equals("/readyz")) {
                return Route.READY;
            }
        }
        if (!path.startsWith(prefix + "/")) {
            return Route.NOT_FOUND;
        }
        if (!"POST".equals(method)) {
            return Route.NOT_FOUND;
        }
        String rest = path.substring(prefix.length() + 1);
        int slash = rest.indexOf('/');
        if (!tenantPath) {
            if (slash >= 0 || rest.isEmpty()) {
                return Route.NOT_FOUND;
            }
            SourceRoute source = sources.get(rest);
            if (source == null) {
                return Route.UNKNOWN_SOURCE;
            }
            return new Route(Kind.INGEST, source, source.tenant() == null ? DEFAULT_TENANT : source.tenant());
        }
        if (slash <= 0 || rest.indexOf('/', slash + 1) >= 0 || slash == rest.length() - 1) {
            return Route.NOT_FOUND;
        }
        String tenant = rest.substring(0, slash);
        if (!TenantId.valid(tenant)) {
            return Route.NOT_FOUND;
        }
        SourceRoute source = sources.get(rest.substring(slash + 1));
        if (source == null || (source.tenant() != null && !source.tenant().equals(tenant))) {
            return Route.UNKNOWN_SOURCE;
        }
        return new Route(Kind.INGEST, source, tenant);
    }
}
