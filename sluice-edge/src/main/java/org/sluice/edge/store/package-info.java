/**
 * The RocksDB store: hooks, the id index, dedupe entries, overrides and audit, and the
 * delivery ledger, with its commit protocol, health and resume. The only package that
 * touches RocksDB.
 *
 * <p>May use: {@code sluice-core}. Nothing else in the edge.
 */
package org.sluice.edge.store;
