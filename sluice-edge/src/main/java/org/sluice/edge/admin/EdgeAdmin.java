package org.sluice.edge.admin;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sluice.core.TenantLimits;
import org.sluice.edge.config.SluiceConfig;
import org.sluice.edge.delivery.DeliveryActivity;
import org.sluice.edge.delivery.DestinationActivity;
import org.sluice.edge.delivery.Replays;
import org.sluice.edge.intake.Intake;
import org.sluice.edge.stats.StatsRing;
import org.sluice.edge.store.HookStore;
import org.sluice.edge.store.HookStoreException;
import org.sluice.edge.store.StoreHealth;
import org.sluice.edge.store.ControlState;

/**
 * Assembles the admin API from a running server's parts: resolves the admin token (and
 * logs where it is, never what it is), adapts the store, and describes admission state.
 * The server calls {@link #handler} once at boot and puts the result on its admin listener.
 */
public final class EdgeAdmin {

    private static final Logger LOG = LoggerFactory.getLogger(EdgeAdmin.class);

    private EdgeAdmin() {
    }

    /**
     * Builds the admin listener's handler over the server's parts.
     *
     * @param tables the limiter tables' rows and sweep totals, read on each {@code GET /v1/admission}
     * @param arena  the host arena's statistics ({@code scope: host}), or null
     * @param resetHostBuckets empties a tenant's buckets in the host arena after its override
     *               changes ({@code scope: host}), or null
     * @param workers where {@link AdminApi#handle} runs (never the admin event loop)
     * @param fleet  the {@code fleet} slot of {@code GET /v1/admission} ({@code scope: fleet}), or null
     * @param resetFleetBuckets forgets a tenant's fleet buckets after its override changes, or null
     * @param stats  the per-second outcome counters, or null for an empty ring
     * @param notReadyReason the reason {@code /readyz} gives (null while ready), or null when unknown
     * @param delivery the dispatcher's live figures, or null: {@link DestinationActivity#IDLE} for each configured name
     * @param pausedChanged called with a destination's name after it was paused or resumed, or null
     * @param replays  runs replays (the server closes it), or null: replays answer 503
     * @param wallMillis epoch ms for delivery rows and ages
     * @param hookLog  where {@code GET /v1/hooks} and {@code /v1/hooks/{id}} read: the store, or the fleet's log
     * @param kindWithoutDelivery the {@code store.kind} whose node holds only its share of the deliveries (the
     *                 delivery routes that would answer for the fleet answer 501; pause and resume, kept
     *                 by {@code overrides}, are served), or null
     * @param fleetDeliveries under that kind, the fleet's dead letters and redeliveries (served for the whole
     *                 fleet), or null
     * @param rotations the destinations' signing key rotations ({@code /v1/destinations/{name}/secrets}), or null
     * @throws IllegalStateException when the token file cannot be created or read, or is not private (the boot fails)
     */
    public static AdminHttpHandler handler(SluiceConfig config, TenantLimits limits, ControlState overrides,
                                           HookStore store, Intake intake,
                                           Supplier<List<AdmissionState.Table>> tables,
                                           Supplier<Map<String, Object>> arena, Consumer<String> resetHostBuckets,
                                           Executor workers, Supplier<Map<String, Object>> fleet,
                                           Consumer<String> resetFleetBuckets, StatsRing stats,
                                           Supplier<String> notReadyReason, DeliveryActivity delivery,
                                           Consumer<String> pausedChanged, Replays replays,
                                           java.util.function.LongSupplier wallMillis,
                                           org.sluice.edge.store.HookLog hookLog, String kindWithoutDelivery,
                                           org.sluice.edge.store.FleetDeliveries fleetDeliveries,
                                           org.sluice.edge.delivery.SecretRotations rotations) {
        Consumer<String> host = resetHostBuckets == null ? tenant -> { } : resetHostBuckets;
        Consumer<String> onChange = resetFleetBuckets == null ? host : host.andThen(resetFleetBuckets);
        AdminToken token = AdminToken.resolve(config.admin(), config.node().dataDir());
        LOG.info("{}", token.describe());
        AdminApi.Builder builder = AdminApi.builder()
                .token(token)
                .limits(limits)
                .audit(StoreAdapters.audit(overrides))
                .hooks(StoreAdapters.hooks(hookLog))
                .admission(() -> new AdmissionState(config.rateLimits().scope().configName(),
                        config.rateLimits().shadow(), tables.get(),
                        new AdmissionState.Queue(intake.queuedHooks(), intake.queuedBytes(),
                                intake.settings().maxQueue(), intake.settings().maxQueueBytes()),
                        arena == null ? null : arena.get(), fleet == null ? null : fleet.get()))
                .onOverrideChanged(onChange)
                .instanceMaxBodyBytes(config.http().maxBodyBytes())
                .stats(stats == null ? new StatsRing(System::currentTimeMillis) : stats)
                .sources(List.copyOf(config.sources().values()))
                .status(notReadyReason == null ? () -> null : notReadyReason, () -> storeBytes(store))
                .delivery(config.destinations(), store.deliveries(), overrides, delivery == null ? idle(config) : delivery,
                        replays, wallMillis, pausedChanged == null ? name -> { } : pausedChanged)
                .withoutDeliveryOnStoreKind(kindWithoutDelivery);
        if (fleetDeliveries != null) {
            builder.fleetDeliveries(fleetDeliveries, config.node().id());
        }
        if (rotations != null) {
            builder.rotations(rotations, wallMillis);
        }
        AdminApi api = builder.build();
        return new AdminHttpHandler(api, workers, config.admin().metricsRequireToken(), config.admin().listen().host(),
                config.admin().allowedHosts());
    }

    /** No dispatcher: every configured destination idle. */
    private static DeliveryActivity idle(SluiceConfig config) {
        return name -> config.destinations().containsKey(name) ? java.util.Optional.of(DestinationActivity.IDLE)
                : java.util.Optional.empty();
    }

    /**
     * The store's size as {@code sluice_store_bytes} and {@code store.max_bytes} see it
     * ({@link StoreHealth#approximateBytes()}; for the RocksDB store, SST files and memtables); -1 when the store
     * cannot be read (closed, or being reopened after a write failure).
     */
    private static long storeBytes(StoreHealth store) {
        try {
            return store.approximateBytes();
        } catch (HookStoreException e) {
            return -1L;
        }
    }
}
