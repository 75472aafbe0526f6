/**
 * The store seam implemented on one RocksDB database: {@code RocksHookStore} (the hook log,
 * the delivery ledger and health, with its commit protocol, dedupe index, reads, lifecycle
 * and resume) and {@code RocksControlState} (overrides, audit, pauses). The only package
 * that touches RocksDB (ArchitectureTest). Its classes are package-private but for those two,
 * which the server's assembly names once, and {@code RocksDeliveryLedger}, the type
 * {@code RocksHookStore.deliveries()} returns.
 *
 * <p>May use: {@code org.sluice.edge.store} (the seam it implements), {@code sluice-core},
 * RocksDB, Jackson, SLF4J.
 */
package org.sluice.edge.store.rocks;
