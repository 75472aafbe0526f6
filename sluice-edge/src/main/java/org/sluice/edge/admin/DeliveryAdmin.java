package org.sluice.edge.admin;

import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.sluice.edge.delivery.DeliveryActivity;
import org.sluice.edge.delivery.Destination;
import org.sluice.edge.delivery.DestinationActivity;
import org.sluice.edge.delivery.Replays;
import org.sluice.edge.store.DeadLetterPage;
import org.sluice.edge.store.DeliveryLedger;
import org.sluice.edge.store.DestinationPauses;
import org.sluice.edge.store.DisabledDestination;
import org.sluice.edge.store.DeliveryRow;
import org.sluice.edge.store.DestinationBacklog;
import org.sluice.edge.store.FleetDeliveries;

/**
 * The delivery routes of the admin API (issue 13): destinations with their live state,
 * pause and resume, a hook's deliveries, dead letters, redelivery and paced replays.
 * Shapes and statuses in docs/admin-api.md. Holds no mutable state of its own: the paused
 * set and every row are in the store's {@link DeliveryLedger}, the live figures come from
 * the dispatcher through {@link DeliveryActivity}, replays from {@link Replays}.
 *
 * <p>Without a ledger (an admin API built without a store) it answers as a node with no
 * delivery rows: empty lists, and {@code hook_not_found} for a redelivery.
 *
 * <p>With the fleet's deliveries ({@link FleetDeliveries}, {@code store.kind: kafka}; see
 * {@link #forFleet}) the dead letters, their counts and redeliveries are the fleet's, and
 * {@code GET /v1/destinations} adds the answering {@code node} and the fleet's
 * {@code unfinished_records}; the node's own share stays in the other figures.
 */
final class DeliveryAdmin {

    /** {@code rate} of a replay body without one, per second. */
    static final int DEFAULT_REPLAY_RATE = 100;

    private static final List<String> REPLAY_FIELDS = List.of("from", "to", "dead_only", "rate", "force");
    private static final String REPLAY_SHAPE =
            "the body must be one JSON object such as {\"from\":\"2026-12-01T00:00:00Z\",\"to\":\"2026-12-02T00:00:00Z\","
                    + "\"dead_only\":true,\"rate\":100}";

    private final Map<String, Destination> destinations;
    private final DeliveryLedger ledger;
    /** Where the paused flags are read and stored: the ledger, or the fleet's control state. */
    private final DestinationPauses pauses;
    private final DeliveryActivity activity;
    private final Replays replays;
    private final LongSupplier wallMillis;
    private final Consumer<String> pausedChanged;
    /** The fleet's dead letters and redeliveries ({@code store.kind: kafka}), or null: the ledger's. */
    private final FleetDeliveries fleet;
    /** The answering node's id, shown beside the fleet's figures; null without {@link #fleet}. */
    private final String nodeId;

    /**
     * @param destinations  the configured destinations in config order
     * @param ledger        the store's delivery rows, or null (no store)
     * @param activity      what the dispatcher is doing per destination
     * @param replays       the replay runner, or null (replays refused with 503)
     * @param wallMillis    epoch ms written on rows and used for ages
     * @param pausedChanged called with a destination's name after its paused flag was stored
     */
    DeliveryAdmin(Map<String, Destination> destinations, DeliveryLedger ledger, DeliveryActivity activity,
                  Replays replays, LongSupplier wallMillis, Consumer<String> pausedChanged) {
        this(destinations, ledger, ledger, activity, replays, wallMillis, pausedChanged);
    }

    /** As above, with the paused flags kept by {@code pauses} (null with a null ledger). */
    DeliveryAdmin(Map<String, Destination> destinations, DeliveryLedger ledger, DestinationPauses pauses,
                  DeliveryActivity activity, Replays replays, LongSupplier wallMillis, Consumer<String> pausedChanged) {
        this.destinations = new LinkedHashMap<>(destinations);
        this.ledger = ledger;
        this.pauses = pauses;
        this.activity = Objects.requireNonNull(activity, "activity");
        this.replays = replays;
        this.wallMillis = Objects.requireNonNull(wallMillis, "wallMillis");
        this.pausedChanged = Objects.requireNonNull(pausedChanged, "pausedChanged");
        this.fleet = null;
        this.nodeId = null;
    }

    private DeliveryAdmin(DeliveryAdmin node, FleetDeliveries fleet, String nodeId) {
        this.destinations = node.destinations;
        this.ledger = node.ledger;
        this.pauses = node.pauses;
        this.activity = node.activity;
        this.replays = node.replays;
        this.wallMillis = node.wallMillis;
        this.pausedChanged = node.pausedChanged;
        this.fleet = Objects.requireNonNull(fleet, "fleet");
        this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
    }

    /** This node's delivery routes with the dead letters, their counts and redeliveries the fleet's. */
    DeliveryAdmin forFleet(FleetDeliveries fleetDeliveries, String node) {
        return new DeliveryAdmin(this, fleetDeliveries, node);
    }

    /** True with the fleet's deliveries ({@code store.kind: kafka}): a hook's deliveries are read as {@link #ofHook} says. */
    boolean answersForFleet() {
        return fleet != null;
    }

    /**
     * True for the routes answered for the whole fleet through {@link FleetDeliveries}:
     * {@code GET /v1/destinations}, {@code GET /v1/dead-letters}, {@code POST /v1/hooks/{id}/redeliver}.
     */
    boolean answersForFleet(String path) {
        return fleet != null && (path.equals("/v1/destinations") || path.equals("/v1/dead-letters")
                || (path.startsWith("/v1/hooks/") && path.endsWith("/redeliver")));
    }

    /** No destinations, no store. */
    static DeliveryAdmin none() {
        return new DeliveryAdmin(Map.of(), null, name -> Optional.empty(), null, System::currentTimeMillis, name -> { });
    }

    boolean knows(String destination) {
        return destinations.containsKey(destination);
    }

    /** The configured destination {@code name}, or null. */
    Destination destination(String name) {
        return destinations.get(name);
    }

    static AdminResponse destinationNotFound() {
        return AdminResponse.json(404, AdminJson.error("destination_not_found"));
    }

    // ------------------------------------------------------------------ destinations

    AdminResponse list() {
        Set<String> paused = paused();
        Map<String, DisabledDestination> disabled = disabled();
        long now = wallMillis.getAsLong();
        Long unfinished = null;
        if (fleet != null && !destinations.isEmpty()) { // one reading of the group's lag for every destination
            long records = fleet.unfinishedRecords();
            unfinished = records < 0 ? null : records;
        }
        List<Map<String, Object>> out = new ArrayList<>(destinations.size());
        for (Destination d : destinations.values()) {
            Map<String, Object> view = view(d, paused.contains(d.name()), disabled.get(d.name()), now);
            if (fleet != null) {
                view.put("dead", fleet.deadCount(d.name()));
                view.put("node", nodeId);
                view.put("unfinished_records", unfinished);
            }
            out.add(view);
        }
        return AdminResponse.json(200, AdminJson.encode(Map.of("destinations", out)));
    }

    /** Stores the paused flag, audits it and answers the destination's object; the name is known. */
    AdminResponse pause(String name, boolean pause, String actor, AuditTrail audit) {
        Destination d = destinations.get(name);
        if (pauses == null) {
            return AdminResponse.json(503, AdminJson.error("store_unavailable"));
        }
        boolean was = paused().contains(name);
        long now = wallMillis.getAsLong();
        pauses.setPaused(name, pause, now);
        audit.record(actor, pause ? "pause" : "resume", null, pausedMap(name, was), pausedMap(name, pause));
        pausedChanged.accept(name);
        return AdminResponse.json(200, AdminJson.encode(view(d, pause, disabled().get(name), now)));
    }

    /**
     * Enables a destination the dispatcher disabled: stores it, audits it and answers the
     * destination's object; the name is known. Its backlog is sent from the next pass on.
     * A destination that is not disabled is answered as it is (and the call audited).
     */
    AdminResponse enable(String name, String actor, AuditTrail audit) {
        Destination d = destinations.get(name);
        if (pauses == null) {
            return AdminResponse.json(503, AdminJson.error("store_unavailable"));
        }
        DisabledDestination was = disabled().get(name);
        long now = wallMillis.getAsLong();
        if (was != null) {
            pauses.setDisabled(name, null, now);
        }
        audit.record(actor, "enable", null, DisabledDestination.auditMap(name, was), DisabledDestination.auditMap(name, null));
        pausedChanged.accept(name);
        return AdminResponse.json(200, AdminJson.encode(view(d, paused().contains(name), null, now)));
    }

    private Map<String, DisabledDestination> disabled() {
        return pauses == null ? Map.of() : pauses.disabledDestinations();
    }

    private static Map<String, Object> pausedMap(String name, boolean paused) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("destination", name);
        out.put("paused", paused);
        return out;
    }

    private Set<String> paused() {
        return pauses == null ? Set.of() : pauses.pausedDestinations();
    }

    private Map<String, Object> view(Destination d, boolean paused, DisabledDestination disabled, long now) {
        DestinationActivity live = activity.of(d.name()).orElse(DestinationActivity.IDLE);
        DestinationBacklog counts = ledger == null ? new DestinationBacklog(0, 0, 0) : ledger.counts(d.name(), now);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", d.name());
        out.put("type", d.type());
        out.put("state", disabled != null ? "disabled" : paused ? "paused" : live.breakerOpen() ? "open" : "ok");
        out.put("disabled", disabled == null ? null : disabled.toMap());
        out.put("in_flight", live.inFlight());
        out.put("pending", counts.pending());
        out.put("dead", counts.dead());
        out.put("oldest_pending_age_ms", counts.oldestPendingAgeMillis());
        out.put("delivered_total", live.deliveredTotal());
        out.put("failed_attempts_total", live.failedAttemptsTotal());
        out.put("pacing", d.adaptive().isPresent() ? "adaptive" : d.rate().isPresent() ? "fixed" : null);
        // this node's pace, to the thousandth of an attempt per second; null when unpaced
        out.put("pace_per_second", live.paced() ? Math.round(live.pacePerSecond() * 1000) / 1000.0 : null);
        return out;
    }

    // ------------------------------------------------------------------ a hook's deliveries

    /** {@code deliveries_from} when the answering node's working set holds the hook's deliveries. */
    static final String FROM_THIS_NODE = "this_node";
    /** {@code deliveries_from} when they are the hook's dead letters, as the fleet keeps them. */
    static final String FROM_DEAD_LETTERS = "dead_letters";

    /**
     * A hook's deliveries for {@code GET /v1/hooks/{id}}: the rows' views (null: nothing known
     * here) and, with the fleet's deliveries, where they were read ({@link #FROM_THIS_NODE},
     * {@link #FROM_DEAD_LETTERS} or null) by which {@code node}; both null on a single node.
     */
    record HookDeliveries(List<Map<String, Object>> rows, String from, String node) {
    }

    /**
     * The hook's deliveries. On a single node, the ledger's rows. With the fleet's deliveries
     * ({@code store.kind: kafka}, docs/fleet-log.md, "A hook's deliveries"), the ledger is this
     * node's working set: its rows when it holds the hook (pending, retrying, or finished and
     * not yet given up); else the fleet's dead letters of the hook; else none (null), the
     * hook's deliveries being with the node that owns its partition, or finished and forgotten.
     *
     * @throws org.sluice.edge.store.HookStoreException when the fleet's dead letters cannot be read yet
     */
    HookDeliveries ofHook(String hookId) {
        List<DeliveryRow> held = ledger == null ? List.of() : ledger.deliveries(hookId);
        if (fleet == null) {
            return new HookDeliveries(views(held), null, null);
        }
        if (!held.isEmpty()) {
            return new HookDeliveries(views(held), FROM_THIS_NODE, nodeId);
        }
        List<DeliveryRow> dead = fleet.deadDeliveriesOf(hookId);
        return dead.isEmpty() ? new HookDeliveries(null, null, nodeId)
                : new HookDeliveries(views(dead), FROM_DEAD_LETTERS, nodeId);
    }

    /** One view per row, as {@code deliveries} shows them (the admin API adds {@code filter} and {@code event_type}). */
    private static List<Map<String, Object>> views(List<DeliveryRow> rows) {
        List<Map<String, Object>> out = new ArrayList<>(rows.size());
        for (DeliveryRow r : rows) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("destination", r.destination());
            row.put("state", r.state().code());
            row.put("attempts", r.attempts());
            row.put("last_status", r.lastStatus());
            row.put("last_error", r.lastError());
            row.put("next_attempt_at", r.state() == org.sluice.edge.store.DeliveryState.PENDING
                    ? AdminJson.time(r.nextAttemptAtMillis()) : null);
            // after a failed attempt, when its answer was recorded: next_attempt_at minus this is the wait drawn
            row.put("updated_at", AdminJson.time(r.updatedAtMillis()));
            row.put("delivered_at", r.deliveredAtMillis() == null ? null : AdminJson.time(r.deliveredAtMillis()));
            row.put("dead_reason", r.deadReason());
            out.add(row);
        }
        return out;
    }

    // ------------------------------------------------------------------ dead letters

    /** One page; {@code destination} is null or known, {@code limit} valid; empty when {@code after} names no hook. */
    Optional<AdminResponse> deadLetters(String destination, String after, int limit) {
        DeadLetterPage page;
        if (fleet != null) {
            try {
                page = fleet.deadLetters(destination, after, limit);
            } catch (IllegalArgumentException notAnId) {
                return Optional.empty();
            }
        } else if (ledger == null) {
            if (after != null) {
                return Optional.empty();
            }
            page = new DeadLetterPage(List.of(), null);
        } else {
            try {
                page = ledger.deadLetters(destination, after, limit);
            } catch (IllegalArgumentException unknownAfter) {
                return Optional.empty();
            }
        }
        List<Map<String, Object>> rows = new ArrayList<>(page.rows().size());
        for (DeliveryRow r : page.rows()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("id", r.hookId());
            row.put("destination", r.destination());
            row.put("reason", r.deadReason());
            row.put("attempts", r.attempts());
            row.put("last_status", r.lastStatus());
            row.put("dead_at", r.deadAtMillis() == null ? null : AdminJson.time(r.deadAtMillis()));
            rows.add(row);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("dead_letters", rows);
        out.put("next", page.next());
        return Optional.of(AdminResponse.json(200, AdminJson.encode(out)));
    }

    // ------------------------------------------------------------------ redelivery

    AdminResponse redeliver(String hookId, byte[] body, String actor, AuditTrail audit) {
        List<String> named = null;
        boolean force = false;
        if (body.length > 0 && !new String(body, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
            Map<String, Object> fields = AdminJson.readObject(body);
            Object list = fields == null ? null : fields.get("destinations");
            Object forced = fields == null ? null : fields.getOrDefault("force", Boolean.FALSE);
            if (fields == null || fields.size() != (fields.containsKey("force") ? 2 : 1)
                    || !(list instanceof List<?> items) || items.isEmpty() || !(forced instanceof Boolean)) {
                return AdminResponse.json(400, AdminJson.error("invalid_redeliver",
                        "the body must be empty or one JSON object such as {\"destinations\":[\"app\"]}"
                                + " (with \"force\":true to name a destination the hook has no delivery to)"));
            }
            force = (Boolean) forced;
            Set<String> names = new LinkedHashSet<>();
            for (Object item : items) {
                if (!(item instanceof String name) || !names.add(name)) {
                    return AdminResponse.json(400, AdminJson.error("invalid_redeliver",
                            "destinations must be distinct destination names"));
                }
            }
            named = List.copyOf(names);
        }
        if (fleet == null && ledger == null) {
            return AdminResponse.json(404, AdminJson.error("hook_not_found"));
        }
        Optional<List<String>> fleetHas = fleet == null ? Optional.empty() : fleet.destinationsOf(hookId);
        List<String> hadRows = fleet != null ? fleetHas.orElse(List.of())
                : ledger.deliveries(hookId).stream().map(DeliveryRow::destination).toList();
        List<String> outsideTheSource = List.of();
        if (named != null) {
            for (String name : named) {
                if (!knows(name)) {
                    return destinationNotFound();
                }
            }
            // A destination the hook has no delivery to is one its source did not deliver it to
            // (perhaps another tenant's): sending it there needs the operator to say so.
            outsideTheSource = named.stream().filter(name -> !hadRows.contains(name)).toList();
            boolean known = !hadRows.isEmpty() || fleetHas.isPresent()
                    || (fleet == null && ledger.redeliver(hookId, List.of(), wallMillis.getAsLong()).isPresent()); // writes nothing
            if (!outsideTheSource.isEmpty() && !force && known) {
                Map<String, Object> refused = new LinkedHashMap<>();
                refused.put("error", "force_required");
                refused.put("destinations", outsideTheSource);
                refused.put("message", "the hook has no delivery to these destinations (its source does not deliver"
                        + " to them): send {\"force\":true} with the list to redeliver there anyway");
                return AdminResponse.json(409, AdminJson.encode(refused));
            }
        } else {
            // every configured destination the hook has a row for (a removed one is not revived)
            named = hadRows.stream().filter(this::knows).toList();
        }
        Optional<Integer> fresh = fleet != null ? fleet.redeliver(hookId, named)
                : ledger.redeliver(hookId, named, wallMillis.getAsLong()).map(List::size);
        if (fresh.isEmpty()) {
            return AdminResponse.json(404, AdminJson.error("hook_not_found"));
        }
        Map<String, Object> after = new LinkedHashMap<>();
        after.put("hook", hookId);
        after.put("destinations", named);
        if (!outsideTheSource.isEmpty()) {
            after.put("forced", outsideTheSource);
        }
        audit.record(actor, "redeliver", null, null, after);
        return AdminResponse.json(202, AdminJson.encode(Map.of("scheduled", fresh.get())));
    }

    // ------------------------------------------------------------------ replays

    AdminResponse replay(String name, byte[] body, String actor, AuditTrail audit) {
        Map<String, Object> fields = AdminJson.readObject(body);
        String problem = AdminJson.fieldsProblem(fields, REPLAY_FIELDS, REPLAY_SHAPE);
        if (problem != null) {
            return invalidReplay(problem);
        }
        Long from = time(fields.get("from"));
        Long to = time(fields.get("to"));
        if (from == null || to == null) {
            return invalidReplay("from and to are required, each an RFC 3339 time with an offset, such as "
                    + "2026-12-01T00:00:00Z");
        }
        if (from < 0) {
            return invalidReplay("from must not be before 1970-01-01T00:00:00Z");
        }
        if (from >= to) {
            return invalidReplay("from must be before to");
        }
        Object deadOnlyField = fields.containsKey("dead_only") ? fields.get("dead_only") : (Object) false;
        if (!(deadOnlyField instanceof Boolean deadOnly)) {
            return invalidReplay("dead_only must be true or false");
        }
        Object forceField = fields.containsKey("force") ? fields.get("force") : (Object) false;
        if (!(forceField instanceof Boolean force)) {
            return invalidReplay("force must be true or false");
        }
        Object rate = fields.getOrDefault("rate", DEFAULT_REPLAY_RATE);
        if (!(rate instanceof Integer r) || r < 1 || r > Replays.MAX_RATE) {
            return invalidReplay("rate must be an integer from 1 to " + Replays.MAX_RATE + " (replays per second), got "
                    + AdminJson.shortened(String.valueOf(rate)));
        }
        if (replays == null || ledger == null) {
            return AdminResponse.json(503, AdminJson.error("store_unavailable"));
        }
        Replays.Progress started;
        try {
            started = replays.start(name, from, to, deadOnly, r, force);
        } catch (Replays.TooManyReplays e) {
            return AdminResponse.json(429, AdminJson.error("too_many_replays", e.getMessage()));
        } catch (Replays.RangeTooWide e) {
            return AdminResponse.json(409, AdminJson.error("force_required", e.getMessage()));
        }
        Map<String, Object> after = new LinkedHashMap<>();
        after.put("destination", name);
        after.put("replay", started.id());
        after.put("from", AdminJson.time(from));
        after.put("to", AdminJson.time(to));
        after.put("dead_only", deadOnly);
        after.put("rate", r);
        if (force) {
            after.put("force", true);
        }
        after.put("scheduled", started.matched());
        audit.record(actor, "replay", null, null, after);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("replay", started.id());
        out.put("scheduled", started.matched());
        return AdminResponse.json(202, AdminJson.encode(out));
    }

    AdminResponse replayStatus(String id) {
        Optional<Replays.Progress> progress = replays == null ? Optional.empty() : replays.get(id);
        if (progress.isEmpty()) {
            return AdminResponse.json(404, AdminJson.error("replay_not_found"));
        }
        Replays.Progress p = progress.get();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("replay", p.id());
        out.put("state", p.running() ? "running" : "done");
        out.put("scheduled", p.scheduled());
        out.put("delivered", p.delivered());
        out.put("dead", p.dead());
        return AdminResponse.json(200, AdminJson.encode(out));
    }

    private static AdminResponse invalidReplay(String message) {
        return AdminResponse.json(400, AdminJson.error("invalid_replay", message));
    }

    /** An RFC 3339 time with an offset as epoch ms, or null. */
    private static Long time(Object value) {
        if (!(value instanceof String text) || text.length() > 64) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant().toEpochMilli();
        } catch (DateTimeParseException | ArithmeticException e) {
            return null;
        }
    }
}
