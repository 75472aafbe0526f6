package org.sluice.edge.admin;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.sluice.core.InvalidLimitException;
import org.sluice.core.Limit;
import org.sluice.core.OverrideStoreException;
import org.sluice.core.TenantLimits;
import org.sluice.edge.config.SourceConfig;
import org.sluice.edge.config.TenantId;
import org.sluice.edge.delivery.DeliveryActivity;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.Replays;
import org.sluice.edge.route.EventType;
import org.sluice.edge.route.Filter;
import org.sluice.edge.route.HookFacts;
import org.sluice.edge.stats.StatsRing;
import org.sluice.edge.store.AuditRecord;
import org.sluice.edge.store.DeliveryLedger;
import org.sluice.edge.store.DestinationPauses;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.UnsupportedOnStoreKind;

/**
 * The admin API's {@code /v1} routes as plain request-to-response logic, with no HTTP
 * server in it: the admin listener turns each request into an {@link AdminRequest},
 * calls {@link #handle} <b>off its event loop</b> (a PUT or DELETE waits for an fsync),
 * and writes the {@link AdminResponse} back.
 *
 * <h2>Order of checks</h2>
 * <ol>
 *   <li>a body over {@link #MAX_BODY_BYTES} -> 413 {@code payload_too_large};</li>
 *   <li>a path outside {@code /v1} -> 404 {@code not_found} (the listener serves
 *       {@code /metrics} itself, see {@link #authorized});</li>
 *   <li>no {@code Authorization: Bearer <token>}, or a wrong one -> 401
 *       {@code unauthorized} (before routing, so an unauthenticated caller learns
 *       nothing about which routes exist);</li>
 *   <li>routing: an unknown path -> 404 {@code not_found}, a known path with another
 *       method -> 405 {@code method_not_allowed} with {@code Allow};</li>
 *   <li>the route's own checks (tenant id, query parameters, body).</li>
 * </ol>
 *
 * <h2>Routes</h2>
 * {@code GET /v1/rate-limits}, {@code GET|PUT|DELETE /v1/tenants/{tenant}/rate-limit},
 * {@code GET /v1/audit}, {@code GET /v1/hooks}, {@code GET /v1/hooks/{id}},
 * {@code GET /v1/admission}, and for the console {@code GET /v1/stats/timeseries},
 * {@code GET /v1/sources}, {@code GET /v1/status}; delivery ({@link DeliveryAdmin}):
 * {@code GET /v1/destinations}, {@code POST /v1/destinations/{name}/pause|resume|enable|replay},
 * {@code GET|POST /v1/destinations/{name}/secrets} ({@link SigningAdmin}),
 * {@code GET /v1/dead-letters}, {@code POST /v1/hooks/{id}/redeliver}, {@code GET /v1/replays/{id}}.
 * Shapes and statuses: {@code docs/admin-api.md}.
 *
 * <p>Thread-safe: it holds no mutable state of its own. Override changes are serialised
 * by {@link TenantLimits}, which writes the store (with fsync) before memory and leaves
 * memory untouched when the store throws.
 */
public final class AdminApi {

    /** Largest request body accepted, in bytes (64 KiB). */
    public static final int MAX_BODY_BYTES = 64 * 1024;
    /** {@code limit} of {@code /v1/audit} and {@code /v1/hooks} when absent. */
    public static final int DEFAULT_PAGE = 100;
    /** Largest {@code limit}; larger values are served as this. */
    public static final int MAX_PAGE = 1000;
    /** The audit actor of a request without {@code X-Sluice-Actor}. */
    public static final String DEFAULT_ACTOR = "admin";
    /** Header naming who makes a change, for the audit trail. */
    public static final String ACTOR_HEADER = "X-Sluice-Actor";
    /** The {@code WWW-Authenticate} challenge of every 401. */
    static final String CHALLENGE = "Bearer realm=\"sluice-admin\"";
    /** Longest accepted {@code X-Sluice-Actor}. */
    public static final int MAX_ACTOR_LENGTH = 128;

    private static final String V1 = "/v1/";
    private static final String TENANTS = "/v1/tenants/";
    private static final String RATE_LIMIT = "/rate-limit";
    private static final String HOOKS = "/v1/hooks";
    private static final String DESTINATIONS = "/v1/destinations";
    /** {@code POST /v1/destinations/{name}/transform:test}: a transformation tried on a hook, nothing sent. */
    private static final String TRANSFORM_TEST = "/transform:test";
    private static final String REDELIVER = "/redeliver";
    /** {@code GET|POST /v1/destinations/{name}/secrets}: signing keys and their runtime rotation. */
    private static final String SECRETS = "secrets";
    private static final String REPLAYS = "/v1/replays/";
    private static final String BEARER = "Bearer ";
    private static final String NOT_AN_OBJECT =
            "the body must be one JSON object with rate and burst, e.g. {\"rate\": 10, \"burst\": 20}";

    private final AdminToken token;
    private final TenantLimits limits;
    private final AuditTrail audit;
    private final HookReader hooks;
    private final Supplier<AdmissionState> admission;
    private final long instanceMaxBodyBytes;
    private final Consumer<String> onOverrideChanged;
    private final ConsoleData console;
    private final DeliveryAdmin delivery;
    private final SigningAdmin signing;
    /** The {@code store.kind} whose node holds only its share of the deliveries (fleet-wide routes: 501), or null. */
    private final String kindWithoutDelivery;
    /** The {@code when:} filters of each source's deliver_to, by source id, then destination. */
    private final Map<String, Map<String, Filter>> filters = new HashMap<>();
    /** Where each source's hooks name their event type, by source id. */
    private final Map<String, EventType> eventTypes = new HashMap<>();

    private AdminApi(Builder b) {
        this.token = Objects.requireNonNull(b.token, "token");
        this.limits = Objects.requireNonNull(b.limits, "limits");
        this.audit = Objects.requireNonNull(b.audit, "audit");
        this.hooks = Objects.requireNonNull(b.hooks, "hooks");
        this.admission = Objects.requireNonNull(b.admission, "admission");
        this.instanceMaxBodyBytes = b.instanceMaxBodyBytes;
        this.onOverrideChanged = b.onOverrideChanged;
        this.console = new ConsoleData(b.stats, b.sources, b.status);
        this.delivery = b.fleet == null ? b.delivery : b.delivery.forFleet(b.fleet, b.fleetNode);
        this.kindWithoutDelivery = b.kindWithoutDelivery;
        this.signing = new SigningAdmin(b.rotations, b.rotationWallMillis);
        for (SourceConfig source : b.sources) {
            filters.put(source.id(), source.filters());
            eventTypes.put(source.id(), source.eventType());
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * True when the request carries {@code Authorization: Bearer <the token>} (compared in
     * constant time). The listener uses it for {@code /metrics} when
     * {@code admin.metrics_require_token} is true.
     */
    public boolean authorized(AdminRequest request) {
        String header = request.header("Authorization");
        if (header == null || header.length() <= BEARER.length()
                || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return false;
        }
        return token.matches(header.substring(BEARER.length()).strip());
    }

    /** True for paths this API answers ({@code /v1} and below). */
    public static boolean owns(String path) {
        return path.equals("/v1") || path.startsWith(V1);
    }

    /** Answers one request. Blocking (store writes fsync): never call it on an event loop. */
    public AdminResponse handle(AdminRequest request) {
        if (request.body().length > MAX_BODY_BYTES) {
            return AdminResponse.json(413, AdminJson.tooLarge(MAX_BODY_BYTES));
        }
        if (!owns(request.path())) {
            return AdminResponse.json(404, AdminJson.error("not_found"));
        }
        if (!authorized(request)) {
            return AdminResponse.json(401, AdminJson.error("unauthorized"))
                    .withHeader("WWW-Authenticate", CHALLENGE);
        }
        try {
            if (kindWithoutDelivery != null && isDeliveryRoute(request.path())
                    && !delivery.answersForFleet(request.path())) {
                throw new UnsupportedOnStoreKind(kindWithoutDelivery, "delivery (" + request.path() + ")");
            }
            return route(request);
        } catch (OverrideStoreException | StoreUnavailableException | HookStoreException e) {
            return AdminResponse.json(503, AdminJson.error("store_unavailable"));
        } catch (UnsupportedOnStoreKind e) {
            return AdminResponse.json(501, AdminJson.error("not_supported_on_store_kind", e.getMessage()));
        }
    }

    /**
     * The routes of {@link DeliveryAdmin} that read or change delivery rows (destinations, dead
     * letters, redeliver); not replays, which read the fleet's log, nor pause and resume, which change
     * only the control state.
     */
    private static boolean isDeliveryRoute(String path) {
        if (path.startsWith(DESTINATIONS + "/") && (path.endsWith("/pause") || path.endsWith("/resume")
                || path.endsWith("/enable") || path.endsWith(TRANSFORM_TEST) || path.endsWith("/" + SECRETS))) {
            return false;
        }
        if (path.startsWith(REPLAYS) || (path.startsWith(DESTINATIONS + "/") && path.endsWith("/replay"))) {
            return false; // a replay reads the fleet's log from its start on that kind (docs/fleet-log.md, "Replays")
        }
        return path.equals(DESTINATIONS) || path.startsWith(DESTINATIONS + "/") || path.equals("/v1/dead-letters")
                || path.startsWith(REPLAYS) || (path.startsWith(HOOKS + "/") && path.endsWith(REDELIVER));
    }

    // ------------------------------------------------------------------ routing

    private AdminResponse route(AdminRequest request) {
        String path = request.path();
        String method = request.method();
        if (path.equals("/v1/rate-limits")) {
            return method.equals("GET") ? listLimits() : notAllowed("GET");
        }
        if (path.equals("/v1/audit")) {
            return method.equals("GET") ? audit(request) : notAllowed("GET");
        }
        if (path.equals("/v1/admission")) {
            return method.equals("GET") ? json(200, AdminJson.admission(admission.get())) : notAllowed("GET");
        }
        if (path.equals("/v1/stats/timeseries")) {
            return method.equals("GET") ? timeseries(request) : notAllowed("GET");
        }
        if (path.equals("/v1/sources")) {
            return method.equals("GET") ? console.sources() : notAllowed("GET");
        }
        if (path.equals("/v1/status")) {
            return method.equals("GET") ? console.status() : notAllowed("GET");
        }
        if (path.equals(HOOKS)) {
            return method.equals("GET") ? hookPage(request) : notAllowed("GET");
        }
        if (path.equals(DESTINATIONS)) {
            return method.equals("GET") ? delivery.list() : notAllowed("GET");
        }
        if (path.startsWith(DESTINATIONS + "/")) {
            return destinationAction(request, path.substring(DESTINATIONS.length() + 1));
        }
        if (path.equals("/v1/dead-letters")) {
            return method.equals("GET") ? deadLetters(request) : notAllowed("GET");
        }
        if (path.startsWith(REPLAYS) && path.length() > REPLAYS.length()) {
            return method.equals("GET") ? delivery.replayStatus(path.substring(REPLAYS.length())) : notAllowed("GET");
        }
        if (path.startsWith(HOOKS + "/") && path.endsWith(REDELIVER)
                && path.length() > HOOKS.length() + 1 + REDELIVER.length()) {
            if (!method.equals("POST")) {
                return notAllowed("POST");
            }
            String actor = actor(request);
            if (actor == null) {
                return invalidActor();
            }
            String id = path.substring(HOOKS.length() + 1, path.length() - REDELIVER.length());
            return delivery.redeliver(id, request.body(), actor, audit);
        }
        if (path.startsWith(HOOKS + "/") && path.length() > HOOKS.length() + 1) {
            return method.equals("GET") ? oneHook(path.substring(HOOKS.length() + 1)) : notAllowed("GET");
        }
        if (path.startsWith(TENANTS) && path.endsWith(RATE_LIMIT)
                && path.length() >= TENANTS.length() + RATE_LIMIT.length()) {
            String tenant = path.substring(TENANTS.length(), path.length() - RATE_LIMIT.length());
            return tenantLimit(request, tenant);
        }
        return AdminResponse.json(404, AdminJson.error("not_found"));
    }

    // ------------------------------------------------------------------ rate limits

    private AdminResponse listLimits() {
        return json(200, AdminJson.listing(limits.list()));
    }

    private AdminResponse tenantLimit(AdminRequest request, String tenant) {
        String method = request.method();
        if (!method.equals("GET") && !method.equals("PUT") && !method.equals("DELETE")) {
            return notAllowed("GET, PUT, DELETE");
        }
        if (!TenantId.valid(tenant)) {
            return AdminResponse.json(400, AdminJson.error("invalid_tenant"));
        }
        if (method.equals("GET")) {
            return json(200, AdminJson.effective(tenant, limits.effective(tenant)));
        }
        String actor = actor(request);
        if (actor == null) {
            return invalidActor();
        }
        if (method.equals("DELETE")) {
            boolean deleted = audit.as(actor, () -> limits.deleteOverride(tenant));
            if (deleted) {
                onOverrideChanged.accept(tenant);
            }
            return deleted ? AdminResponse.noContent() : AdminResponse.json(404, AdminJson.error("rate_limit_not_found"));
        }
        Limit limit;
        try {
            limit = parseLimit(request.body());
        } catch (InvalidLimitException e) {
            return AdminResponse.json(400, AdminJson.error("invalid_rate_limit", e.getMessage()));
        }
        if (limit == null) {
            return AdminResponse.json(400, AdminJson.error("invalid_rate_limit", NOT_AN_OBJECT));
        }
        audit.as(actor, () -> {
            limits.putOverride(tenant, limit);
            return null;
        });
        onOverrideChanged.accept(tenant);
        return json(200, AdminJson.effective(tenant, limits.effective(tenant)));
    }

    private static AdminResponse invalidActor() {
        return AdminResponse.json(400, AdminJson.error("invalid_actor",
                ACTOR_HEADER + " must be 1 to " + MAX_ACTOR_LENGTH + " printable ASCII characters"));
    }

    // ------------------------------------------------------------------ delivery

    /** {@code /v1/destinations/{name}/pause|resume|enable|replay}; {@code rest} is what follows {@code /v1/destinations/}. */
    private AdminResponse destinationAction(AdminRequest request, String rest) {
        int slash = rest.indexOf('/');
        String action = slash < 0 ? "" : rest.substring(slash + 1);
        if (slash > 0 && ("/" + action).equals(TRANSFORM_TEST)) {
            if (!request.method().equals("POST")) {
                return notAllowed("POST");
            }
            Destination d = delivery.destination(rest.substring(0, slash));
            return d == null ? DeliveryAdmin.destinationNotFound() : TransformTrial.run(d, request.body(), hooks);
        }
        if (slash > 0 && action.equals(SECRETS)) {
            return secrets(request, rest.substring(0, slash));
        }
        if (slash <= 0 || !(action.equals("pause") || action.equals("resume") || action.equals("enable")
                || action.equals("replay"))) {
            return AdminResponse.json(404, AdminJson.error("not_found"));
        }
        if (!request.method().equals("POST")) {
            return notAllowed("POST");
        }
        String actor = actor(request);
        if (actor == null) {
            return invalidActor();
        }
        String name = rest.substring(0, slash);
        if (!delivery.knows(name)) {
            return DeliveryAdmin.destinationNotFound();
        }
        return switch (action) {
            case "replay" -> delivery.replay(name, request.body(), actor, audit);
            case "enable" -> delivery.enable(name, actor, audit);
            default -> delivery.pause(name, action.equals("pause"), actor, audit);
        };
    }

    /** {@code GET|POST /v1/destinations/{name}/secrets}: the signing keys, and a rotation of them. */
    private AdminResponse secrets(AdminRequest request, String name) {
        String method = request.method();
        if (!method.equals("GET") && !method.equals("POST")) {
            return notAllowed("GET, POST");
        }
        if (!delivery.knows(name)) {
            return DeliveryAdmin.destinationNotFound();
        }
        if (method.equals("GET")) {
            return signing.list(name);
        }
        String actor = actor(request);
        return actor == null ? invalidActor() : signing.rotate(name, request.body(), actor, audit);
    }

    private AdminResponse deadLetters(AdminRequest request) {
        return paged(request, page -> {
            String destination = emptyAsNull(page.params().get("destination"));
            if (destination != null && !delivery.knows(destination)) {
                return DeliveryAdmin.destinationNotFound();
            }
            return delivery.deadLetters(destination, page.after(), page.limit())
                    .orElseGet(() -> invalidAfter(page.after()));
        });
    }

    /** The body as a limit; null when it is not one JSON object. */
    private Limit parseLimit(byte[] body) {
        Map<String, Object> attrs = AdminJson.readObject(body);
        return attrs == null ? null : Limit.parse(attrs, instanceMaxBodyBytes);
    }

    /** The request's actor, {@link #DEFAULT_ACTOR} when absent or blank, null when unacceptable. */
    private static String actor(AdminRequest request) {
        String actor = request.header(ACTOR_HEADER);
        if (actor == null || actor.isBlank()) {
            return DEFAULT_ACTOR;
        }
        actor = actor.strip();
        if (actor.length() > MAX_ACTOR_LENGTH) {
            return null;
        }
        for (int i = 0; i < actor.length(); i++) {
            char c = actor.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return null;
            }
        }
        return actor;
    }

    // ------------------------------------------------------------------ audit

    private AdminResponse audit(AdminRequest request) {
        return paged(request, page -> {
            List<AuditRecord> records = audit.newest(page.limit());
            return json(200, AdminJson.audit(records));
        });
    }

    // ------------------------------------------------------------------ console

    private AdminResponse timeseries(AdminRequest request) {
        Map<String, String> query = query(request.query());
        if (query == null) {
            return AdminResponse.json(400, AdminJson.error("invalid_query", "the query string is not valid percent-encoding"));
        }
        return console.timeseries(query.get("seconds"));
    }

    // ------------------------------------------------------------------ hooks

    /**
     * {@code order=oldest} (the default): commit order, bodies included; {@code order=newest}:
     * newest first, without bodies (what the console's Hooks page lists).
     */
    private AdminResponse hookPage(AdminRequest request) {
        return paged(request, page -> {
            String order = page.params().getOrDefault("order", "oldest");
            if (order.equals("newest")) {
                return hooks.newest(page.after(), page.limit())
                        .map(found -> json(200, AdminJson.summaries(found)))
                        .orElseGet(() -> invalidAfter(page.after()));
            }
            if (!order.equals("oldest")) {
                return AdminResponse.json(400, AdminJson.error("invalid_query",
                        "order must be oldest or newest, got \"" + AdminJson.shortened(order) + "\""));
            }
            return hooks.after(page.after(), page.limit())
                    .map(found -> json(200, AdminJson.page(found)))
                    .orElseGet(() -> invalidAfter(page.after()));
        });
    }

    /** The hook's event type as its source derives it now, from the stored headers and body; null when none. */
    private String eventType(HookReader.Hook hook) {
        Map<String, String> headers = hook.headers();
        return new HookFacts(name -> {
            for (Map.Entry<String, String> h : headers.entrySet()) {
                if (h.getKey().equalsIgnoreCase(name)) {
                    return h.getValue();
                }
            }
            return null;
        }, hook.body(), eventTypes.getOrDefault(hook.source(), EventType.NONE)).eventType();
    }

    private AdminResponse oneHook(String id) {
        Optional<HookReader.Hook> hook = hooks.get(id);
        if (hook.isEmpty()) {
            return AdminResponse.json(404, AdminJson.error("hook_not_found"));
        }
        Map<String, Object> view = AdminJson.hook(hook.get());
        if (kindWithoutDelivery != null && !delivery.answersForFleet()) {
            // a store kind whose deliveries cannot be read here says so (null), rather than an empty list
            view.put("deliveries", null);
            return json(200, view);
        }
        DeliveryAdmin.HookDeliveries found = delivery.ofHook(hook.get().id());
        List<Map<String, Object>> deliveries = found.rows();
        if (deliveries != null) {
            Map<String, Filter> when = filters.getOrDefault(hook.get().source(), Map.of());
            String eventType = eventType(hook.get());
            for (Map<String, Object> row : deliveries) { // the filter that selected it, as configured now
                Filter f = when.get((String) row.get("destination"));
                row.put("filter", f == null ? null : f.text());
                row.put("event_type", eventType);
            }
        }
        view.put("deliveries", deliveries);
        if (found.node() != null) { // the fleet's kind: which node answered, and from what
            view.put("deliveries_from", found.from());
            view.put("node", found.node());
        }
        return json(200, view);
    }

    // ------------------------------------------------------------------ helpers

    /**
     * A listing's query, read: every parameter, the page size and the cursor (null: from the
     * start; an empty {@code after=} counts as absent).
     */
    private record PageQuery(Map<String, String> params, int limit, String after) {}

    /**
     * Reads a listing's query ({@code limit}, {@code after}) and hands it to {@code serve};
     * answers 400 {@code invalid_query} or {@code invalid_limit} itself.
     */
    private static AdminResponse paged(AdminRequest request, Function<PageQuery, AdminResponse> serve) {
        Map<String, String> query = query(request.query());
        if (query == null) {
            return AdminResponse.json(400, AdminJson.error("invalid_query", "the query string is not valid percent-encoding"));
        }
        int limit = pageLimit(query.get("limit"));
        if (limit < 0) {
            return invalidLimit(query.get("limit"));
        }
        return serve.apply(new PageQuery(query, limit, emptyAsNull(query.get("after"))));
    }

    private static String emptyAsNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }

    private static AdminResponse invalidAfter(String after) {
        return AdminResponse.json(400, AdminJson.error("invalid_after", "no stored hook has id " + AdminJson.shortened(after)));
    }

    /** {@code limit}: absent -> default; 1..MAX -> itself; above MAX -> MAX; anything else -> -1. */
    private static int pageLimit(String raw) {
        if (raw == null) {
            return DEFAULT_PAGE;
        }
        if (raw.isEmpty() || !raw.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        String digits = raw.replaceFirst("^0+", "");
        if (digits.isEmpty()) {
            return -1;
        }
        return digits.length() > 4 ? MAX_PAGE : Math.min(Integer.parseInt(digits), MAX_PAGE);
    }

    private static AdminResponse invalidLimit(String raw) {
        return AdminResponse.json(400, AdminJson.error("invalid_limit",
                "limit must be an integer of at least 1 (at most " + MAX_PAGE + " are returned), got \""
                        + AdminJson.shortened(raw) + "\""));
    }

    /** Decoded query parameters (the first of a repeated name wins), or null for bad percent-encoding. */
    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw.isEmpty()) {
            return out;
        }
        try {
            for (String pair : raw.split("&", 64)) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                out.putIfAbsent(name, value);
            }
        } catch (IllegalArgumentException e) {
            return null;
        }
        return out;
    }

    private static AdminResponse notAllowed(String allow) {
        return AdminResponse.json(405, AdminJson.error("method_not_allowed")).withHeader("Allow", allow);
    }

    private static AdminResponse json(int status, Object body) {
        return AdminResponse.json(status, AdminJson.encode(body));
    }

    /** Collects what {@link AdminApi} reads and changes. */
    public static final class Builder {
        private AdminToken token;
        private TenantLimits limits;
        private AuditTrail audit;
        private HookReader hooks;
        private Supplier<AdmissionState> admission;
        private long instanceMaxBodyBytes = Long.MAX_VALUE;
        private Consumer<String> onOverrideChanged = tenant -> { };
        private StatsRing stats = new StatsRing(System::currentTimeMillis);
        private List<SourceConfig> sources = List.of();
        private Supplier<ConsoleData.Status> status = () -> new ConsoleData.Status(null, -1);
        private DeliveryAdmin delivery = DeliveryAdmin.none();
        private String kindWithoutDelivery;
        private org.sluice.edge.store.FleetDeliveries fleet;
        private String fleetNode;
        private org.sluice.edge.delivery.SecretRotations rotations;
        private java.util.function.LongSupplier rotationWallMillis = System::currentTimeMillis;

        private Builder() {
        }

        /**
         * The signing keys' runtime rotations behind {@code GET|POST /v1/destinations/{name}/secrets}
         * (default: none, and every destination answers {@code not_signing}).
         *
         * @param wallMillis epoch ms a rotation starts at (its overlap counts from it)
         */
        public Builder rotations(org.sluice.edge.delivery.SecretRotations rotations,
                                 java.util.function.LongSupplier wallMillis) {
            this.rotations = Objects.requireNonNull(rotations, "rotations");
            this.rotationWallMillis = Objects.requireNonNull(wallMillis, "wallMillis");
            return this;
        }

        /** The per-second outcome counters behind {@code GET /v1/stats/timeseries} (default: an empty ring). */
        public Builder stats(StatsRing stats) {
            this.stats = Objects.requireNonNull(stats, "stats");
            return this;
        }

        /** The configured sources listed by {@code GET /v1/sources} (default: none). */
        public Builder sources(List<SourceConfig> sources) {
            this.sources = List.copyOf(sources);
            return this;
        }

        /**
         * {@code GET /v1/status}: the reason {@code /readyz} would give (null while ready) and
         * the store's bytes on disk (-1 when unknown). Called on the admin executor per request.
         */
        public Builder status(Supplier<String> notReadyReason, java.util.function.LongSupplier storeBytes) {
            Objects.requireNonNull(notReadyReason, "notReadyReason");
            Objects.requireNonNull(storeBytes, "storeBytes");
            this.status = () -> new ConsoleData.Status(notReadyReason.get(), storeBytes.getAsLong());
            return this;
        }

        /**
         * The delivery routes' parts (default: no destinations and no rows).
         *
         * @param destinations  the configured destinations, in config order
         * @param ledger        the store's delivery rows
         * @param activity      what the dispatcher is doing per destination; a node without a dispatcher
         *                      answers {@code DestinationActivity.IDLE} for each configured name
         * @param replays       runs {@code POST /v1/destinations/{name}/replay}
         * @param wallMillis    epoch ms written on redelivered rows and used for ages
         * @param pausedChanged called with the name after a destination's paused flag was stored (the
         *                      dispatcher reads the paused set from the ledger; this lets it look at once)
         */
        public Builder delivery(Map<String, Destination> destinations, DeliveryLedger ledger, DeliveryActivity activity,
                                Replays replays, java.util.function.LongSupplier wallMillis,
                                Consumer<String> pausedChanged) {
            return delivery(destinations, ledger, ledger, activity, replays, wallMillis, pausedChanged);
        }

        /**
         * As {@link #delivery(Map, DeliveryLedger, DeliveryActivity, Replays, java.util.function.LongSupplier,
         * Consumer)}, with the paused flags read and stored through {@code pauses} (the control
         * state: under {@code store.kind: kafka}, the fleet's) rather than the ledger.
         */
        public Builder delivery(Map<String, Destination> destinations, DeliveryLedger ledger, DestinationPauses pauses,
                                DeliveryActivity activity, Replays replays, java.util.function.LongSupplier wallMillis,
                                Consumer<String> pausedChanged) {
            this.delivery = new DeliveryAdmin(destinations, Objects.requireNonNull(ledger, "ledger"),
                    Objects.requireNonNull(pauses, "pauses"), activity, replays, wallMillis, pausedChanged);
            return this;
        }

        /**
         * Under a {@code store.kind} whose node holds only its share of the deliveries
         * ({@code kind}; null: none), the delivery routes that would have to answer for the
         * whole fleet (destinations' pending, dead letters, redeliver) answer
         * {@code 501 not_supported_on_store_kind} rather than show the node's share; pausing
         * and resuming a destination, which the control state does for the fleet, are served,
         * and so are the routes {@link #fleetDeliveries} answers for the fleet.
         */
        public Builder withoutDeliveryOnStoreKind(String kind) {
            this.kindWithoutDelivery = kind;
            return this;
        }

        /**
         * Under a {@code store.kind} whose node holds only its share of the deliveries: the
         * fleet's dead letters and redeliveries, which then answer {@code GET /v1/dead-letters},
         * {@code POST /v1/hooks/{id}/redeliver} and {@code GET /v1/destinations} for the whole
         * fleet (the latter with the answering {@code node}'s own figures beside the fleet's).
         */
        public Builder fleetDeliveries(org.sluice.edge.store.FleetDeliveries fleetDeliveries, String node) {
            this.fleet = Objects.requireNonNull(fleetDeliveries, "fleetDeliveries");
            this.fleetNode = Objects.requireNonNull(node, "node");
            return this;
        }

        public Builder token(AdminToken token) {
            this.token = token;
            return this;
        }

        /** The node's tenant limits: read by the rate-limit routes, changed by PUT and DELETE. */
        public Builder limits(TenantLimits limits) {
            this.limits = limits;
            return this;
        }

        /** The audit side of the override store that {@code limits} was built on. */
        public Builder audit(AuditTrail audit) {
            this.audit = audit;
            return this;
        }

        public Builder hooks(HookReader hooks) {
            this.hooks = hooks;
            return this;
        }

        public Builder admission(Supplier<AdmissionState> admission) {
            this.admission = admission;
            return this;
        }

        /** {@code http.max_body_bytes}: the ceiling of an override's {@code max_body_bytes}. */
        public Builder instanceMaxBodyBytes(long instanceMaxBodyBytes) {
            if (instanceMaxBodyBytes < 1) {
                throw new IllegalArgumentException("instanceMaxBodyBytes must be at least 1, got " + instanceMaxBodyBytes);
            }
            this.instanceMaxBodyBytes = instanceMaxBodyBytes;
            return this;
        }

        /**
         * Called with the tenant after its override was stored and applied (PUT, or a DELETE
         * that removed one): the server empties the tenant's buckets kept outside
         * {@link TenantLimits} (the host arena's, under {@code scope: host}).
         */
        public Builder onOverrideChanged(Consumer<String> onOverrideChanged) {
            this.onOverrideChanged = Objects.requireNonNull(onOverrideChanged, "onOverrideChanged");
            return this;
        }

        public AdminApi build() {
            return new AdminApi(this);
        }
    }
}
