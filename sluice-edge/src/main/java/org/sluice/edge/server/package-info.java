/**
 * The node's lifecycle: {@code EdgeServer} boots and stops everything, in order, and builds
 * each ingest connection's pipeline ({@code EdgeServer.Pipeline}); the state behind the request
 * path ({@code Backends}: the store, the intake, the tenant gate with its limits, queue shares,
 * host arena and fleet gate, the dispatcher with {@code DeliveryTransports}, the one place
 * that names every transport room and builds the transport of each kind of target, and
 * under {@code store.kind: kafka} with {@code FleetPaceLink}, its paced destinations' fleet
 * permits from the fleet client;
 * {@code IntakeSink} hands it to {@code http}); the
 * housekeeping threads ({@code Sweeper}, {@code Retention}, with the cached store size
 * {@code StoreSize}); the admin listener ({@code AdminServer}, {@code AdminDeadlines}); the
 * process metrics ({@code ProcessMetrics}) and both listeners' socket options
 * ({@code ListenerOptions}, on the transport {@code http.transport} chose in {@code netio}).
 *
 * <p>May use every other package of the edge, and is the only one that names the RocksDB
 * store ({@code store.rocks}) and the fleet's log ({@code store.kafka}, opened by
 * {@code FleetLogs} under {@code store.kind: kafka}), which it opens once and hands out
 * through the seam's interfaces (ArchitectureTest). No other package uses this one except {@code cli} (which
 * starts an {@code EdgeServer}). The only public API is {@code EdgeServer} and its builder.
 */
package org.sluice.edge.server;
