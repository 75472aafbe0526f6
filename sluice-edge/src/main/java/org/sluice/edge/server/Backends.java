package org.sluice.edge.server;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.core.BucketTable;
import org.sluice.core.Clock;
import org.sluice.core.QueueShares;
import org.sluice.core.TenantLimits;
import org.sluice.edge.config.SluiceConfig;
import org.sluice.edge.delivery.http.ClientLoops;
import org.sluice.edge.config.EventsConfig;
import org.sluice.edge.delivery.Dispatcher;
import org.sluice.edge.delivery.OperationalEvents;
import org.sluice.edge.delivery.SecretRotations;
import org.sluice.edge.store.ControlState;
import org.sluice.edge.store.HookLog;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.kafka.KafkaControlState;
import org.sluice.edge.store.kafka.KafkaFleetDeliveries;
import org.sluice.edge.store.kafka.KafkaHookLog;
import org.sluice.edge.store.kafka.LogFollower;
import org.sluice.edge.store.rocks.RocksControlState;
import org.sluice.edge.store.rocks.RocksHookStore;
import java.util.function.UnaryOperator;
import org.sluice.edge.intake.BatchCommitter;
import org.sluice.edge.intake.Intake;
import org.sluice.edge.log.Warnings;
import org.sluice.edge.http.HookSink;
import org.sluice.edge.admission.FleetGate;
import org.sluice.edge.admission.TenantAdmission;
import org.sluice.edge.admission.TenantGate;
import org.sluice.edge.admission.HostArena;
import org.sluice.edge.admission.StoreShares;

/**
 * The state behind the request path, opened at boot and closed last: the store and its
 * intake, the tenant limits and the queue shares. What the request path sees of them are
 * two narrow interfaces: {@link TenantGate} ({@link TenantAdmission}) and {@link HookSink}
 * ({@link IntakeSink}).
 */
final class Backends implements AutoCloseable {

    private final HookStore store;
    /** The same store seen as the working set of this node's share of the fleet's log (replays copy into it). */
    private final org.sluice.edge.store.WorkingSet workingSet;
    /** Under {@code store.kind: kafka}, the fleet's log the intake commits to; else null. Closed after the intake. */
    private final KafkaHookLog kafkaLog;
    /** Where hooks are committed and read by id: {@link #kafkaLog}, or the store. */
    private final HookLog log;
    private final Intake intake;
    private final TenantLimits limits;
    private final ControlState overrides;
    /** Under {@code store.kind: kafka}, the fleet's control state ({@link #overrides}); else null. Closed after the dispatcher. */
    private final KafkaControlState control;
    /**
     * Under {@code store.kind: kafka} with destinations, fills the working set from this
     * node's share of the log; else null. Closed after the dispatcher.
     */
    private final LogFollower follower;
    /** Under {@code store.kind: kafka}, the fleet's dead letters and redeliveries for the admin API; else null. */
    private final KafkaFleetDeliveries fleetDeliveries;
    /** The host arena when {@code rate_limits.scope} is host (tenant buckets live there), else null. */
    private final HostArena host;
    /** The fleet client when {@code rate_limits.scope} or {@code dedupe.scope} is fleet, else null. */
    private final FleetGate fleet;
    private final QueueShares shares = new QueueShares();
    private final BucketTable hookBuckets = new BucketTable();
    private final BucketTable byteBuckets = new BucketTable();
    private final TenantRows rows = new TenantRows();
    private final long instanceMaxBody;
    private final LongSupplier epochMillis;
    private final TenantGate gate;
    private final HookSink sink;
    /** The destinations' signing keys as rotated at runtime: read from the control state at boot, followed on kafka. */
    private final SecretRotations rotations;
    /** Delivers to {@code destinations}; null when none is configured. Closed before the store. */
    private final Dispatcher dispatcher;
    /** The operational events' committer, or null without {@code events.deliver_to}. Closed after the dispatcher. */
    private final OperationalEvents events;
    private final java.util.concurrent.atomic.AtomicBoolean dispatcherClosed = new java.util.concurrent.atomic.AtomicBoolean();
    private final StoreSize size;
    private static final Logger LOG = LoggerFactory.getLogger(Backends.class);
    private final Warnings resumeWarnings = new Warnings(LOG, java.util.concurrent.TimeUnit.MINUTES.toNanos(1));
    /** Only the sweeper's resume task touches it. */
    private boolean storeFailing;

    private Backends(SluiceConfig config, Clock clock, LongSupplier epochMillis, MeterRegistry registry,
                     UnaryOperator<BatchCommitter> commitWrapper, ClientLoops httpLoops,
                     org.sluice.edge.telemetry.Telemetry telemetry) {
        this.epochMillis = epochMillis;
        this.instanceMaxBody = config.http().maxBodyBytes();
        java.nio.file.Path storeDir = config.node().dataDir().resolve("store");
        if (config.store().kafka().isPresent()) {
            FleetLogs.emptyWorkingSet(storeDir); // the node's share of the log, rebuilt from the log
        }
        RocksHookStore rocks = RocksHookStore.open(storeDir,
                RocksHookStore.Options.defaults().withDedupeTtl(java.time.Duration.ofSeconds(config.dedupe().ttlSeconds()))
                        .withWallClock(epochMillis).withCountStoredBytes(config.rateLimits().hasStoredShares())
                        .withSyncCommits(config.store().kafka().isEmpty())); // a working set: emptied at boot
        this.store = rocks; // the one place that names the RocksDB store; everything else sees the seam
        this.workingSet = rocks;
        // under store.kind kafka the node's RocksDB store is its working set: its share of the log's hooks
        try {
            this.kafkaLog = config.store().kafka().map(k -> FleetLogs.open(config, k, epochMillis, registry)).orElse(null);
        } catch (RuntimeException e) {
            throw closeAfterFailedBoot(e, store);
        }
        this.log = kafkaLog != null ? kafkaLog : store;
        try { // the fleet's control state on its topic, else the node's in its store
            this.control = config.store().kafka().map(k -> FleetLogs.openControl(config, k, epochMillis)).orElse(null);
        } catch (RuntimeException e) {
            throw closeAfterFailedBoot(e, kafkaLog, store);
        }
        try { // every node indexes the fleet's dead letters
            this.fleetDeliveries = kafkaLog == null ? null : FleetLogs.openFleetDeliveries(kafkaLog, epochMillis, registry);
        } catch (RuntimeException e) {
            throw closeAfterFailedBoot(e, control, kafkaLog, store);
        }
        try { // overrides persist in the control state; one that cannot be read fails the boot
            this.overrides = control != null ? control : new RocksControlState(rocks, instanceMaxBody);
            this.limits = new TenantLimits(config.rateLimits().defaultLimit().orElse(null), config.rateLimits().tenants(),
                    overrides, hookBuckets, byteBuckets, clock);
            if (control != null) {
                control.followOverrides(limits); // an override set on any node applies here
            }
        } catch (RuntimeException e) {
            throw closeAfterFailedBoot(new IllegalStateException(
                    "cannot load the rate-limit overrides from " + (control != null ? "the control topic" : store.location())
                            + ": " + e.getMessage(), e), control, fleetDeliveries, kafkaLog, store);
        }
        try { // keys rotated at runtime sign from the first attempt; on kafka a rotation on any node signs here too
            this.rotations = new SecretRotations(config.destinations().values(), overrides);
            if (control != null) {
                control.onSigningChanged(rotations::changed);
            }
            rotations.load();
        } catch (RuntimeException e) {
            throw closeAfterFailedBoot(e, control, fleetDeliveries, kafkaLog, store);
        }
        try {
            this.host = config.rateLimits().scope() == org.sluice.edge.config.LimitScope.HOST
                    ? HostArena.open(config.rateLimits().hostArena(),
                            config.rateLimits().hostArenaGroup().orElse(null), clock) : null;
        } catch (RuntimeException e) {
            throw closeAfterFailedBoot(e, control, fleetDeliveries, kafkaLog, store);
        }
        try {
            this.fleet = FleetGate.wanted(config) ? FleetGate.start(config, limits, hookBuckets, byteBuckets, clock) : null;
        } catch (RuntimeException e) {
            throw closeAfterFailedBoot(e, control, fleetDeliveries, kafkaLog, store, host);
        }
        Intake opened;
        try {
            opened = Intake.start(commitWrapper.apply(log::commit), config.intake(), registry, Clock.system());
        } catch (RuntimeException e) {
            throw closeAfterFailedBoot(e, control, fleetDeliveries, kafkaLog, store, host, fleet);
        }
        this.intake = opened;
        Dispatcher delivering = null;
        OperationalEvents events = null;
        LogFollower following = null;
        if (!config.destinations().isEmpty()) {
            try {
                // the paused set is the control state's: the fleet's under kind kafka
                delivering = new Dispatcher(java.util.List.copyOf(config.destinations().values()), store, overrides,
                        fleetPacing(config, kafkaLog != null, fleet), clock, epochMillis, registry,
                        new java.util.SplittableRandom(), new DeliveryTransports(
                        httpLoops != null ? httpLoops.transport() : config.http().transport().choose().transport(),
                        httpLoops, telemetry));
                if (control != null) {
                    control.onPausedChanged(delivering::pausedChanged); // a pause made on any node wakes this one
                }
                // the dispatcher's own disables are audited where the operators' changes are, by "sluice"
                delivering.audit(org.sluice.edge.delivery.DeliveryAudit.of(overrides));
                if (config.events().enabled()) { // the operational events: hooks of the built-in source
                    events = new OperationalEvents(log, EventsConfig.TENANT, EventsConfig.SOURCE,
                            config.events().deliverTo(), config.events().deadLetterIntervalMillis(), epochMillis);
                    delivering.events(events);
                }
                delivering.start();
                if (kafkaLog != null) { // the working set is filled from this node's share of the log
                    following = new LogFollower(FleetLogs.follower(config.store().kafka().orElseThrow())
                            .withCarryAfter(java.time.Duration.ofSeconds(config.retention().hooksSeconds()).dividedBy(2)), rocks, clock,
                            epochMillis, fifoDestinations(config));
                    FleetLogs.followerMeters(following.figures(), registry);
                    Dispatcher d = delivering;
                    java.time.Duration bound = FleetLogs.attemptsBound(config);
                    following.awaitOnRevoke(ids -> d.awaitOrderedAttemptsEnded(ids, bound));
                    following.start();
                }
            } catch (RuntimeException e) {
                throw closeAfterFailedBoot(e, intake, delivering, events, following, control, fleetDeliveries, kafkaLog, store, host,
                        fleet);
            }
        }
        this.dispatcher = delivering;
        this.events = events;
        this.follower = following;
        this.gate = new TenantAdmission(limits, shares, host, fleet, instanceMaxBody, config.rateLimits().shadow(),
                !config.rateLimits().hasStoredShares() ? StoreShares.NONE
                        : new StoreShares(t -> config.rateLimits().maxStoredBytes(t).orElse(0L), store::storedBytes));
        this.size = new StoreSize(store, config.store().maxBytes());
        if (events != null) {
            int percent = config.events().storeNearlyFullPercent();
            OperationalEvents told = events;
            size.onNearlyFull(percent, bytes -> told.storeNearlyFull(bytes, config.store().maxBytes(), percent));
        }
        this.sink = new IntakeSink(store, log, kafkaLog == null ? null : kafkaLog::problem, intake, epochMillis, size);
    }

    /**
     * Where paced destinations take their permits: under {@code store.kind: kafka} with the
     * fleet's Redis in use ({@code rate_limits.scope} or {@code dedupe.scope} {@code fleet}),
     * the fleet's bucket of each destination, so {@code rate} is the fleet's; else null (each
     * node its own bucket). On the kafka kind without the fleet, a paced destination's
     * {@code rate} is each node's: the boot says so once per destination.
     */
    private static org.sluice.edge.delivery.FleetPacing fleetPacing(SluiceConfig config, boolean kafkaKind,
                                                                    FleetGate fleet) {
        if (!kafkaKind) {
            return null;
        }
        if (fleet != null) {
            return new FleetPaceLink(fleet.client());
        }
        config.destinations().values().stream().filter(d -> d.rate().isPresent() || d.adaptive().isPresent())
                .forEach(d -> LOG.warn("destination {} is paced at rate {} per node, not for the fleet: under store.kind kafka "
                        + "a fleet-wide rate needs the fleet's Redis (rate_limits.scope or dedupe.scope fleet, with fleet.redis); "
                        + "see docs/delivery.md, \"Pacing on the kafka kind\"", d.name(),
                        d.rate().map(l -> (Object) l.rate()).orElseGet(() -> d.adaptive().get())));
        return null;
    }

    /** The names of the destinations delivered in order ({@code fifo}), whose hooks the follower never moves. */
    private static java.util.Set<String> fifoDestinations(SluiceConfig config) {
        java.util.Set<String> names = new java.util.HashSet<>();
        config.destinations().values().forEach(d -> {
            if (d.ordering() == org.sluice.edge.delivery.Ordering.FIFO) {
                names.add(d.name());
            }
        });
        return names;
    }

    /**
     * Closes, in the order given, the parts the constructor opened before {@code failure}
     * (null: a part this config does not use), and returns {@code failure} to throw, with
     * any failure to close added to it as suppressed, so every part is tried.
     */
    private static RuntimeException closeAfterFailedBoot(RuntimeException failure, AutoCloseable... opened) {
        for (AutoCloseable part : opened) {
            if (part == null) {
                continue;
            }
            try {
                part.close();
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
        return failure;
    }

    static Backends open(SluiceConfig config, Clock clock, LongSupplier epochMillis, MeterRegistry registry) {
        return open(config, clock, epochMillis, registry, UnaryOperator.identity(), null,
                org.sluice.edge.telemetry.Telemetry.off());
    }

    /**
     * As {@link #open(SluiceConfig, Clock, LongSupplier, MeterRegistry)}; tests wrap the
     * intake's commit (a failure seam). {@code httpLoops}: event loops the HTTP delivery
     * client borrows (the server's ingest loops), or null for its own; the owner closes
     * them after {@link #closeDispatcher()}. {@code telemetry}: traces the delivery attempts
     * (its owner closes it after this).
     */
    static Backends open(SluiceConfig config, Clock clock, LongSupplier epochMillis, MeterRegistry registry,
                         UnaryOperator<BatchCommitter> commitWrapper, ClientLoops httpLoops,
                         org.sluice.edge.telemetry.Telemetry telemetry) {
        return new Backends(config, clock, epochMillis, registry, commitWrapper, httpLoops, telemetry);
    }

    /**
     * Closes the dispatcher (waiting a bounded time for its attempts out); idempotent, and
     * {@link #close()} calls it too. The server calls it before it shuts down the event
     * loops the HTTP client borrowed, so attempts out end with their answers.
     */
    void closeDispatcher() {
        if (dispatcher != null && dispatcherClosed.compareAndSet(false, true)) {
            dispatcher.close(); // waits a bounded time for attempts out; the rest stays pending
            if (events != null) {
                events.close(); // commits what the dispatcher told it, before the store closes
            }
        }
    }

    HookStore store() {
        return store;
    }

    /** Where hooks are committed and read by id: the fleet's log under {@code store.kind: kafka}, else the store. */
    HookLog log() {
        return log;
    }

    /**
     * What replays walk: under {@code store.kind: kafka} a reader of the fleet's log that
     * copies the range's hooks into this node's working set; else null (the store's rows).
     */
    org.sluice.edge.store.ReplaySource replaySource() {
        return kafkaLog == null ? null : kafkaLog.replaySource(workingSet, fleetDeliveries);
    }

    /**
     * The {@code store.kind} whose node holds only its share of the deliveries ({@code kafka}:
     * the admin routes that would answer for the whole fleet answer 501), or null.
     */
    String kindWithoutDelivery() {
        return kafkaLog == null ? null : "kafka";
    }

    Intake intake() {
        return intake;
    }

    /** The tenant limits (the admin API reads and changes their overrides). */
    TenantLimits limits() {
        return limits;
    }

    /** The host arena ({@code rate_limits.scope: host}), or null. */
    HostArena host() {
        return host;
    }

    /** The fleet gate ({@code scope: fleet}), or null. */
    FleetGate fleet() {
        return fleet;
    }

    /** The destinations' signing key rotations ({@code POST /v1/destinations/{name}/secrets}). */
    SecretRotations rotations() {
        return rotations;
    }

    /** The persisted overrides behind {@link #limits()}, with their audit trail. */
    ControlState overrides() {
        return overrides;
    }

    TenantGate tenants() {
        return gate;
    }

    HookSink sink() {
        return sink;
    }

    /** The delivery dispatcher (its live figures, {@code wake()}, {@code pausedChanged}), or null without destinations. */
    Dispatcher dispatcher() {
        return dispatcher;
    }

    /** Under {@code store.kind: kafka}, the fleet's dead letters and redeliveries; else null. */
    KafkaFleetDeliveries fleetDeliveries() {
        return fleetDeliveries;
    }

    /** Under {@code store.kind: kafka} with destinations, the follower of this node's share of the log; else null. */
    LogFollower follower() {
        return follower;
    }

    /** The store's cached size against {@code store.max_bytes}. */
    StoreSize storeSize() {
        return size;
    }

    /** Both tenant tables seen as one, for the limiter metrics and tests. */
    TenantRows tenantRows() {
        return rows;
    }

    void sweepDedupe(int max, long nowMillis) {
        if (store.isOpen()) {
            store.sweepDedupe(max, nowMillis);
        }
    }

    /**
     * Tries to bring a failing store back ({@link HookStore#tryResume()}); logs when it
     * starts failing, when a try fails (at most once a minute) and when it is back.
     */
    void resumeStore() {
        if (!store.isOpen() || store.isHealthy()) {
            storeFailing = false;
            return;
        }
        if (!storeFailing) {
            storeFailing = true;
            LOG.error("the store at {} cannot write; /readyz answers 503 store_failing; trying to resume it every {} ms",
                    store.location(), Sweeper.RESUME_MILLIS);
        }
        if (store.tryResume()) {
            storeFailing = false;
            LOG.warn("the store at {} writes again; /readyz is ready", store.location());
        } else {
            resumeWarnings.warn("the store at " + store.location() + " still cannot write; see docs/operations.md, "
                    + "\"the store fails\"", null);
        }
    }

    /** Stops the intake taking hooks and commits every hook it holds (idempotent). */
    void flushIntake() {
        intake.close();
    }

    /** Flushes the intake (every hook it holds is committed and answered), then closes the store. */
    @Override
    public void close() {
        try {
            intake.close();
        } finally {
            closeDispatcher();
            if (follower != null) {
                follower.close(); // after the dispatcher: nothing is sent once the partitions have moved
            }
            if (control != null) {
                control.close();
            }
            if (fleetDeliveries != null) {
                fleetDeliveries.close(); // before the log, whose clients it uses
            }
            if (kafkaLog != null) {
                kafkaLog.close(); // after the intake: its last batches are answered
            }
            store.close();
            if (host != null) {
                host.close();
            }
            if (fleet != null) {
                fleet.close(); // after the intake: its last commits' settles are queued and drained
            }
        }
    }

    /** The tenant limiter's two tables, summed. */
    final class TenantRows {
        int size() {
            return hookBuckets.size() + byteBuckets.size();
        }

        long swept() {
            return hookBuckets.swept() + byteBuckets.swept();
        }

        void sweepNext(long now) {
            limits.sweepNext(now);
        }
    }
}
