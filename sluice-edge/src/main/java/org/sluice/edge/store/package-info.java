/**
 * The store seam: what the rest of the edge asks of its durable store, as small interfaces
 * named for what the caller needs ({@link org.sluice.edge.store.HookLog} the hook log,
 * {@link org.sluice.edge.store.DeliveryLedger} the delivery state,
 * {@link org.sluice.edge.store.ControlState} the control state,
 * {@link org.sluice.edge.store.StoreHealth} health and size,
 * {@link org.sluice.edge.store.HookStore} the whole,
 * {@link org.sluice.edge.store.WorkingSet} a store holding a node's share of the fleet's log,
 * {@link org.sluice.edge.store.FleetDeliveries} the fleet's dead letters and redeliveries where
 * a node holds only its share, and
 * {@link org.sluice.edge.store.ReplaySource} what a replay walks), with the domain records they speak in
 * ({@code StoredHook}, {@code DeliveryRow}, {@code HookPage}, {@code CommitResult}, ...).
 * Nothing here names an engine: no column family, write option or RocksDB type. The
 * RocksDB implementation is {@code org.sluice.edge.store.rocks}, the Kafka log's
 * {@code org.sluice.edge.store.kafka}; this package depends on neither.
 *
 * <p>{@link org.sluice.edge.store.UuidV7} makes the ids of both implementations;
 * {@link org.sluice.edge.store.UnsupportedOnStoreKind} is what a kind throws for an
 * operation it does not offer (the admin API answers 501).
 *
 * <p>{@link org.sluice.edge.store.CommitClaims} is the one route from a commit to the
 * dispatcher (implemented in {@code delivery}, which the store never names).
 *
 * <p>May use: {@code sluice-core}. Nothing else in the edge; no other room depends on
 * {@code store.rocks} but {@code server} (ArchitectureTest).
 */
package org.sluice.edge.store;
