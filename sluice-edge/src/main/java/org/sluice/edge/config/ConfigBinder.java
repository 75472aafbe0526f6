package org.sluice.edge.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import org.sluice.core.Limit;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.targets.NatsTarget;
import org.sluice.edge.intake.IntakeSettings;
import org.sluice.edge.settings.FilePaths;
import org.sluice.edge.settings.Paths;
import org.sluice.edge.settings.Problems;
import org.sluice.edge.settings.Section;
import org.sluice.edge.settings.Values;

/**
 * Walks the converted tree section by section into a {@link SluiceConfig}, recording
 * every problem, then applies the rules that span sections. Returns null when any
 * problem was found.
 */
final class ConfigBinder {

    static final List<String> TOP = List.of("node", "admin", "http", "rate_limits", "intake", "dedupe", "sources", "fleet",
            "destinations", "retention", "store", "logging", "telemetry", "events");
    static final List<String> EVENTS = List.of("deliver_to", "dead_letter_interval_seconds", "store_nearly_full_percent");
    static final List<String> NODE = List.of("id", "data_dir");
    static final List<String> ADMIN = List.of("listen", "token", "metrics_require_token", "allowed_hosts", "read_timeout_ms",
            "idle_timeout_ms", "max_connections", "workers", "tls");
    static final List<String> HTTP = List.of("listen", "prefix", "routing", "max_body_bytes", "trusted_proxies",
            "read_timeout_ms", "max_header_bytes", "reuse_port", "refused_body", "tls", "max_inflight_body_bytes",
            "max_connections_per_ip", "transport");
    static final List<String> TLS = List.of("cert_file", "key_file");
    static final List<String> RATE_LIMITS = List.of("scope", "shadow", "per_ip", "node", "sources", "default",
            "tenants", "host_arena", "host_arena_group");
    static final List<String> RATE_LIMITS_SOURCES = List.of("default");
    static final List<String> SOURCE_DEFAULT = List.of("bytes_per_second");
    static final List<String> INTAKE = List.of("partitions", "max_batch", "max_delay_ms", "max_queue",
            "max_queue_bytes", "commit_deadline_ms");
    static final List<String> DEDUPE = List.of("ttl_seconds", "scope");
    static final List<String> FLEET = List.of("redis", "timeout_ms", "breaker_failure_rate", "breaker_min_calls",
            "breaker_window_ms", "breaker_open_ms", "pending_ttl_ms", "settle_interval_ms", "settle_queue_max", "fallback");

    static final List<String> RETENTION = List.of("hooks_seconds", "dead_seconds");
    static final List<String> STORE = StoreReader.STORE;
    static final List<String> LOGGING = List.of("format");
    static final List<String> TELEMETRY = List.of("otlp", "sampling_ratio");
    static final List<String> TELEMETRY_OTLP = List.of("endpoint");

    static final long MAX_BODY_CEILING = 1L << 30; // bodies are held in memory whole
    static final long MAX_INFLIGHT_CEILING = 1L << 40;
    static final int MIN_ADMIN_TOKEN_CHARS = 16;

    private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final Pattern PREFIX_SEGMENT = Pattern.compile("[A-Za-z0-9._~-]+");
    private static final Pattern TOKEN_CHARS = Pattern.compile("[\\x21-\\x7e]+");
    private static final Pattern GROUP_NAME = Pattern.compile("[A-Za-z0-9_.][A-Za-z0-9_.-]{0,31}");

    private final Problems problems;

    ConfigBinder(Problems problems) {
        this.problems = problems;
    }

    SluiceConfig bind(Object tree) {
        Section root = Section.of(problems, "", tree, TOP);
        NodeConfig node = node(root.section("node", NODE));
        AdminConfig admin = admin(root.section("admin", ADMIN));
        HttpConfig http = http(root.section("http", HTTP));
        RateLimitsConfig rateLimits = rateLimits(root.section("rate_limits", RATE_LIMITS), node, http);
        IntakeSettings intake = intake(root.section("intake", INTAKE));
        DedupeConfig dedupe = dedupe(root.section("dedupe", DEDUPE));
        Map<String, Destination> destinations = DestinationReader.read(root, http.maxBodyBytes());
        Map<String, SourceConfig> sources = SourceReader.read(root, rateLimits.sourceBytesPerSecond(),
                destinations.keySet(),
                root.raw("destinations") instanceof Map<?, ?> named ? names(named) : Set.of());
        FleetConfig fleet = fleet(root.section("fleet", FLEET));
        RetentionConfig retention = retention(root.section("retention", RETENTION));
        StoreConfig store = StoreReader.read(root);
        LoggingConfig logging = new LoggingConfig(root.section("logging", LOGGING).choice("format", LoggingConfig.Format.TEXT));
        TelemetryConfig telemetry = telemetry(root.section("telemetry", TELEMETRY));
        EventsConfig events = events(root.section("events", EVENTS), destinations.keySet(),
                root.raw("destinations") instanceof Map<?, ?> named ? names(named) : Set.of());
        crossChecks(admin, http, rateLimits, tree);
        subjectChecks(sources, destinations);
        StoreReader.dedupeChecks(store, dedupe, sources, root);
        if (!problems.isEmpty()) {
            return null;
        }
        return new SluiceConfig(node, admin, http, rateLimits, intake, dedupe, sources, fleet, destinations,
                retention, store, logging, telemetry, events);
    }

    /** {@code telemetry}: an OTLP/HTTP endpoint (an http or https URL with a host) and a ratio from 0 to 1. */
    private static TelemetryConfig telemetry(Section s) {
        Section otlp = s.section("otlp", TELEMETRY_OTLP);
        Optional<URI> endpoint = Optional.empty();
        String url = otlp.string("endpoint", null);
        if (url != null) {
            try {
                URI u = new URI(url.strip());
                if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null
                        || u.getRawQuery() != null || u.getRawFragment() != null) {
                    throw new URISyntaxException(url, "not an http or https URL with a host and no query");
                }
                endpoint = Optional.of(u);
            } catch (URISyntaxException e) {
                s.problem(otlp.pathOf("endpoint") + " must be an http or https URL with a host (an OTLP/HTTP"
                        + " collector, e.g. http://collector:4318), got " + Values.render(url));
            }
        }
        Object ratio = s.raw("sampling_ratio");
        double samplingRatio = TelemetryConfig.DEFAULT_SAMPLING_RATIO;
        if (ratio != null) {
            Double d = Values.number(ratio);
            if (d == null || !(d >= 0 && d <= 1)) {
                s.problem(s.pathOf("sampling_ratio") + " must be a number between 0 and 1, got " + Values.render(ratio));
            } else {
                samplingRatio = d;
            }
        }
        return new TelemetryConfig(endpoint, samplingRatio);
    }


    /** {@code events:}: the destinations of the operational events, and how often a dead letter may make one. */
    private static EventsConfig events(Section s, Set<String> destinations, Set<String> named) {
        long interval = s.integer("dead_letter_interval_seconds", EventsConfig.DEFAULT_DEAD_LETTER_INTERVAL_SECONDS, 1L,
                EventsConfig.MAX_DEAD_LETTER_INTERVAL_SECONDS);
        List<String> deliverTo = new java.util.ArrayList<>();
        List<?> raw = s.has("deliver_to") ? s.list("deliver_to") : List.of();
        for (int i = 0; raw != null && i < raw.size(); i++) {
            String at = s.pathOf("deliver_to") + "[" + i + "]";
            String name = raw.get(i) instanceof String n ? n : null;
            if (name == null) {
                s.problem(at + " must be a destination name, got " + raw.get(i));
            } else if (deliverTo.contains(name)) {
                s.problem(at + " names destination \"" + name + "\" twice");
            } else if (!destinations.contains(name)) {
                if (!named.contains(name)) { // a named but invalid destination has its own message already
                    s.problem(at + " names no configured destination: got " + name
                            + (destinations.isEmpty() ? " (no destinations are configured)"
                                    : ", configured: " + String.join(", ", destinations)));
                }
            } else {
                deliverTo.add(name);
            }
        }
        int nearlyFull = s.integer("store_nearly_full_percent", EventsConfig.DEFAULT_STORE_NEARLY_FULL_PERCENT, 1, 100);
        return new EventsConfig(deliverTo, interval * 1000, nearlyFull);
    }

    private static Set<String> names(Map<?, ?> m) {
        Set<String> out = new java.util.HashSet<>();
        m.keySet().forEach(k -> out.add(String.valueOf(k)));
        return out;
    }

    private static RetentionConfig retention(Section s) {
        return new RetentionConfig(
                s.integer("hooks_seconds", RetentionConfig.DEFAULT_HOOKS_SECONDS, 1L, RetentionConfig.MAX_SECONDS),
                s.integer("dead_seconds", RetentionConfig.DEFAULT_DEAD_SECONDS, 1L, RetentionConfig.MAX_SECONDS));
    }

    // ------------------------------------------------------------------ node, admin

    private NodeConfig node(Section s) {
        String id = s.string("id", NodeConfig.DEFAULT_ID);
        if (!NODE_ID.matcher(id).matches()) {
            s.problem(s.pathOf("id") + " must be 1 to 64 characters from A-Z a-z 0-9 _ - ., got " + Values.render(s.raw("id")));
            id = NodeConfig.DEFAULT_ID;
        }
        Path dataDir = path(s, "data_dir", NodeConfig.DEFAULT_DATA_DIR);
        return new NodeConfig(id, dataDir);
    }

    private AdminConfig admin(Section s) {
        HostPort listen = hostPort(s, "listen", AdminConfig.DEFAULT_LISTEN);
        String token = s.string("token", "");
        if (!token.isEmpty()) {
            Object raw = s.raw("token");
            if (token.length() < MIN_ADMIN_TOKEN_CHARS) {
                s.problem(s.pathOf("token") + " must be at least " + MIN_ADMIN_TOKEN_CHARS
                        + " characters (or empty, to generate one), got " + Values.renderSecret(raw));
            } else if (!TOKEN_CHARS.matcher(token).matches()) {
                s.problem(s.pathOf("token") + " must be printable ASCII without spaces (it travels in an"
                        + " Authorization header), got " + Values.renderSecret(raw));
            }
        }
        boolean metricsRequireToken = s.bool("metrics_require_token", false);
        long readTimeout = s.integer("read_timeout_ms", AdminConfig.DEFAULT_READ_TIMEOUT_MS, 1L, 3_600_000L);
        long idleTimeout = s.integer("idle_timeout_ms", AdminConfig.DEFAULT_IDLE_TIMEOUT_MS, 1L, 3_600_000L);
        int maxConnections = s.integer("max_connections", AdminConfig.DEFAULT_MAX_CONNECTIONS, 1, 10_000);
        int workers = s.integer("workers", AdminConfig.DEFAULT_WORKERS, 1, 64);
        Optional<TlsConfig> tls = Optional.empty();
        if (s.has("tls")) {
            tls = tls(s.section("tls", TLS));
        }
        return new AdminConfig(listen, token, metricsRequireToken, readTimeout, idleTimeout, maxConnections, workers,
                tls, allowedHosts(s));
    }

    /** {@code admin.allowed_hosts}: host names, or {@code "*"}. */
    private List<String> allowedHosts(Section s) {
        List<?> raw = s.list("allowed_hosts");
        if (raw == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            String text = Values.string(raw.get(i));
            if (text == null || !(text.equals("*") || HostPort.isHostName(text))) {
                s.problem(Paths.index(s.pathOf("allowed_hosts"), i) + " must be a host name such as"
                        + " \"sluice-1.internal\" (or \"*\" for any), got " + Values.render(raw.get(i)));
                continue;
            }
            out.add(text);
        }
        return out;
    }

    // ------------------------------------------------------------------ http

    private HttpConfig http(Section s) {
        HttpConfig d = HttpConfig.defaults();
        HostPort listen = hostPort(s, "listen", d.listen());
        String prefix = prefix(s);
        Routing routing = s.choice("routing", Routing.PATH);
        long maxBody = s.integer("max_body_bytes", d.maxBodyBytes(), 1L, MAX_BODY_CEILING);
        CidrSet trusted = trustedProxies(s);
        long readTimeout = s.integer("read_timeout_ms", d.readTimeoutMs(), 1L, 3_600_000L);
        int maxHeader = s.integer("max_header_bytes", d.maxHeaderBytes(), 1024, 1 << 20);
        boolean reusePort = s.bool("reuse_port", false);
        RefusedBody refusedBody = s.choice("refused_body", d.refusedBody());
        Optional<TlsConfig> tls = Optional.empty();
        if (s.has("tls")) {
            tls = tls(s.section("tls", TLS));
        }
        // the default never stands below max_body_bytes (a larger body could never be read)
        long inflight = s.integer("max_inflight_body_bytes", Math.max(d.maxInflightBodyBytes(), maxBody), 1L,
                MAX_INFLIGHT_CEILING);
        if (s.has("max_inflight_body_bytes") && inflight < maxBody) {
            s.problem(s.pathOf("max_inflight_body_bytes") + " must be at least http.max_body_bytes (" + maxBody
                    + "), or no body of the largest size could ever be read, got " + inflight);
        }
        int perIp = s.integer("max_connections_per_ip", d.maxConnectionsPerIp(), 0, 1_000_000);
        HttpTransport transport = s.choice("transport", d.transport());
        return new HttpConfig(listen, prefix, routing, maxBody, trusted, readTimeout, maxHeader, reusePort, refusedBody,
                tls, inflight, perIp, transport);
    }

    private String prefix(Section s) {
        String raw = s.string("prefix", HttpConfig.DEFAULT_PREFIX);
        String p = raw.length() > 1 && raw.endsWith("/") ? raw.substring(0, raw.length() - 1) : raw;
        if (p.equals("/") || p.isEmpty()) {
            return "";
        }
        boolean ok = p.startsWith("/");
        for (String seg : p.substring(1).split("/", -1)) {
            ok &= PREFIX_SEGMENT.matcher(seg).matches();
        }
        if (!ok) {
            s.problem(s.pathOf("prefix") + " must be a URL path such as /hooks (segments of A-Z a-z 0-9 . _ ~ -), got "
                    + Values.render(s.raw("prefix")));
            return HttpConfig.DEFAULT_PREFIX;
        }
        return p;
    }

    private CidrSet trustedProxies(Section s) {
        List<?> raw = s.list("trusted_proxies");
        if (raw == null) {
            return CidrSet.empty();
        }
        List<Cidr> out = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            String at = Paths.index(s.pathOf("trusted_proxies"), i);
            String text = Values.string(raw.get(i));
            if (text == null) {
                s.problem(at + " must be a string such as \"10.0.0.0/8\", got " + Values.render(raw.get(i)));
                continue;
            }
            try {
                out.add(Cidr.parse(text));
            } catch (IllegalArgumentException e) {
                s.problem(at + " must be an IP address or network such as 10.0.0.0/8 or fd00::/8 ("
                        + e.getMessage() + "), got " + Values.render(raw.get(i)));
            }
        }
        return CidrSet.of(out);
    }

    private Optional<TlsConfig> tls(Section t) {
        Path cert = requiredReadableFile(t, "cert_file");
        Path key = requiredReadableFile(t, "key_file");
        return cert != null && key != null ? Optional.of(new TlsConfig(cert, key)) : Optional.empty();
    }

    private Path requiredReadableFile(Section t, String key) {
        if (!t.has(key)) {
            t.problem(t.pathOf(key) + " is required when " + t.path() + " is set");
            return null;
        }
        Path p = path(t, key, null);
        if (p == null) {
            return null;
        }
        String why = FilePaths.unreadable(p);
        if (why != null) {
            t.problem(t.pathOf(key) + " must be a readable PEM file, got " + Values.render(t.raw(key)) + " (" + why + ")");
            return null;
        }
        return p;
    }

    // ------------------------------------------------------------------ rate_limits

    private RateLimitsConfig rateLimits(Section s, NodeConfig node, HttpConfig http) {
        LimitScope scope = s.choice("scope", LimitScope.NODE);
        boolean shadow = s.bool("shadow", false);
        long instanceMax = http.maxBodyBytes();
        Optional<Limit> perIp = LimitReader.read(problems, s.pathOf("per_ip"), s.raw("per_ip"), instanceMax,
                LimitReader.RATE_AND_BURST);
        Optional<Limit> nodeLimit = LimitReader.read(problems, s.pathOf("node"), s.raw("node"), instanceMax,
                LimitReader.RATE_AND_BURST);
        Section sources = s.section("sources", RATE_LIMITS_SOURCES);
        Section sourceDefault = sources.section("default", SOURCE_DEFAULT);
        long sourceBytes = sourceDefault.integer("bytes_per_second",
                RateLimitsConfig.DEFAULT_SOURCE_BYTES_PER_SECOND, 1L, Long.MAX_VALUE);
        List<String> allFields = new ArrayList<>(Limit.FIELDS);
        allFields.add(LimitReader.MAX_STORED_BYTES);
        Optional<Limit> defaultLimit = LimitReader.read(problems, s.pathOf("default"), s.raw("default"), instanceMax,
                allFields);
        OptionalLong defaultShare = LimitReader.storedShare(problems, s.pathOf("default"), s.raw("default"));
        Map<String, Long> shares = new LinkedHashMap<>();
        Map<String, Limit> tenants = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : s.entries("tenants").entrySet()) {
            if (!TenantId.valid(e.getKey())) {
                s.problem(s.pathOf("tenants") + " has an invalid tenant id " + Values.quote(e.getKey())
                        + ": a tenant id is " + TenantId.RULE);
                continue;
            }
            String path = Paths.child(s.pathOf("tenants"), e.getKey());
            if (e.getValue() == null) {
                s.problem(path + " must be a mapping such as {rate: 50, burst: 100}, got null");
                continue;
            }
            LimitReader.read(problems, path, e.getValue(), instanceMax, allFields)
                    .ifPresent(l -> tenants.put(e.getKey(), l));
            LimitReader.storedShare(problems, path, e.getValue()).ifPresent(b -> shares.put(e.getKey(), b));
        }
        Path hostArena = path(s, "host_arena", RateLimitsConfig.defaultHostArena(node.id()));
        Optional<String> hostArenaGroup = groupName(s, "host_arena_group");
        return new RateLimitsConfig(scope, shadow, perIp, nodeLimit, sourceBytes, defaultLimit, tenants, hostArena,
                hostArenaGroup, defaultShare, shares);
    }

    // ------------------------------------------------------------------ intake, dedupe

    private IntakeSettings intake(Section s) {
        IntakeSettings d = IntakeSettings.defaults();
        return new IntakeSettings(
                s.integer("partitions", d.partitions(), 1, 64),
                s.integer("max_batch", d.maxBatch(), 1, 65_536),
                s.integer("max_delay_ms", d.maxDelayMs(), 0L, 60_000L),
                s.integer("max_queue", d.maxQueue(), 1, Integer.MAX_VALUE),
                s.integer("max_queue_bytes", d.maxQueueBytes(), 1L, Long.MAX_VALUE),
                s.integer("commit_deadline_ms", d.commitDeadlineMs(), 1L, Long.MAX_VALUE));
    }

    private DedupeConfig dedupe(Section s) {
        long ttl = s.integer("ttl_seconds", DedupeConfig.DEFAULT_TTL_SECONDS, 1L,
                DedupeConfig.MAX_TTL_SECONDS);
        DedupeScope scope = s.choice("scope", DedupeScope.NODE);
        return new DedupeConfig(ttl, scope);
    }

    // ------------------------------------------------------------------ fleet

    private FleetConfig fleet(Section s) {
        FleetConfig d = FleetConfig.defaults();
        List<URI> redis = redis(s, d.redis());
        return new FleetConfig(redis,
                s.integer("timeout_ms", d.timeoutMs(), 1L, 60_000L),
                s.positiveNumber("breaker_failure_rate", d.breakerFailureRate(), 1.0),
                s.integer("breaker_min_calls", d.breakerMinCalls(), 1, Integer.MAX_VALUE),
                s.integer("breaker_window_ms", d.breakerWindowMs(), 1L, Long.MAX_VALUE),
                s.integer("breaker_open_ms", d.breakerOpenMs(), 1L, Long.MAX_VALUE),
                s.integer("pending_ttl_ms", d.pendingTtlMs(), 1L, Long.MAX_VALUE),
                s.integer("settle_interval_ms", d.settleIntervalMs(), 1L, 60_000L),
                s.integer("settle_queue_max", d.settleQueueMax(), 1, Integer.MAX_VALUE),
                s.choice("fallback", FleetFallback.SHARE));
    }

    private List<URI> redis(Section s, List<URI> def) {
        Object raw = s.raw("redis");
        if (raw == null) {
            return def;
        }
        if (Values.string(raw) != null) {
            URI one = redisUri(s, s.pathOf("redis"), raw);
            return one == null ? def : List.of(one);
        }
        if (!(raw instanceof List<?> list)) {
            s.problem(s.pathOf("redis") + " must be a redis:// URI or a list of them, got " + Values.render(raw));
            return def;
        }
        if (list.isEmpty()) {
            s.problem(s.pathOf("redis") + " must list at least one redis:// URI, got an empty list");
            return def;
        }
        List<URI> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            URI u = redisUri(s, Paths.index(s.pathOf("redis"), i), list.get(i));
            if (u != null) {
                out.add(u);
            }
        }
        return out.size() == list.size() ? out : def;
    }

    private URI redisUri(Section s, String path, Object raw) {
        String text = Values.string(raw);
        String shown = text == null ? Values.render(raw) : Values.quote(text.replaceAll("//[^/@]*@", "//***@"));
        if (text != null) {
            try {
                URI u = new URI(text);
                if (("redis".equals(u.getScheme()) || "rediss".equals(u.getScheme())) && u.getHost() != null) {
                    return u;
                }
            } catch (URISyntaxException ignored) {
                // reported below
            }
        }
        s.problem(path + " must be a redis:// or rediss:// URI with a host, got " + shown);
        return null;
    }

    // ------------------------------------------------------------------ shared readers

    private HostPort hostPort(Section s, String key, HostPort def) {
        String text = s.string(key, null); // null when absent, or not a string (a problem recorded)
        if (text == null) {
            return def;
        }
        try {
            return HostPort.parse(text);
        } catch (IllegalArgumentException e) {
            s.problem(s.pathOf(key) + " must be host:port such as 127.0.0.1:9090 or [::1]:9090 ("
                    + e.getMessage() + "), got " + Values.render(s.raw(key)));
            return def;
        }
    }

    /** A POSIX group name (portable characters, as useradd accepts them); whether it exists is checked when the file is made. */
    private static Optional<String> groupName(Section s, String key) {
        String text = s.string(key, null); // null when absent, or not a string (a problem recorded)
        if (text == null) {
            return Optional.empty();
        }
        if (!GROUP_NAME.matcher(text).matches()) {
            s.problem(s.pathOf(key) + " must be a group name (1 to 32 characters from A-Z a-z 0-9 _ . -, not starting"
                    + " with -), got " + Values.render(s.raw(key)));
            return Optional.empty();
        }
        return Optional.of(text);
    }

    private Path path(Section s, String key, Path def) {
        String text = s.string(key, null); // null when absent, or not a string (a problem recorded)
        if (text == null) {
            return def;
        }
        Path p = FilePaths.of(text);
        if (p == null) {
            s.problem(s.pathOf(key) + " must be a file system path, got " + Values.render(s.raw(key)));
            return def;
        }
        return p;
    }

    // ------------------------------------------------------------------ rules across sections

    private void crossChecks(AdminConfig admin, HttpConfig http, RateLimitsConfig rateLimits, Object tree) {
        if (http.routing() == Routing.TENANT_PATH && rateLimits.defaultLimit().isEmpty() && !hasBadDefault(tree)) {
            problems.add("http.routing tenant_path requires rate_limits.default: the URL lets a sender name any"
                    + " tenant, so without a default every tenant not listed in rate_limits.tenants would be"
                    + " unlimited");
        }
        HostPort a = admin.listen();
        HostPort h = http.listen();
        if (a.port() != 0 && a.port() == h.port() && (a.host().equals(h.host()) || isWildcard(a.host()) || isWildcard(h.host()))) {
            problems.add("admin.listen must not share a port with http.listen, got " + Values.quote(a.toString())
                    + " and " + Values.quote(h.toString()));
        }
    }

    /**
     * A source's tenant fills the {@code {tenant}} of every NATS subject it delivers to, as
     * exactly one token (NatsTarget.tokenProblem): a tenant id may hold dots, which would
     * split it. (A source id, which fills {@code {source}}, holds no dot, wildcard or space.)
     */
    private void subjectChecks(Map<String, SourceConfig> sources, Map<String, Destination> destinations) {
        for (SourceConfig source : sources.values()) {
            for (String name : source.deliverTo()) {
                if (!(destinations.get(name).target() instanceof NatsTarget n)) {
                    continue;
                }
                String where = " in " + Paths.child(Paths.child("destinations", name), "subject") + " "
                        + Values.quote(n.subject()) + ": ";
                String tenant = source.tenant().orElse("");
                if (n.fillsTenant() && !tenant.isEmpty() && NatsTarget.tokenProblem(tenant) != null) {
                    problems.add(Paths.child(Paths.child("sources", source.id()), "tenant") + " " + Values.quote(tenant)
                            + " cannot fill {tenant}" + where + "a tenant id there " + NatsTarget.tokenProblem(tenant));
                }
            }
        }
    }

    /** True when rate_limits.default was written but is invalid: that problem is already reported. */
    @SuppressWarnings("unchecked")
    private static boolean hasBadDefault(Object tree) {
        if (tree instanceof Map<?, ?> m && m.get("rate_limits") instanceof Map<?, ?> rl) {
            return ((Map<String, Object>) rl).get("default") != null;
        }
        return false;
    }

    private static boolean isWildcard(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0");
    }
}
