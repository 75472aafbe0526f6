/**
 * Per-second counters of the ingest outcomes for the console's overview chart
 * ({@code GET /v1/stats/timeseries}). Fed by the ingest path ({@code http}), read by the
 * admin API ({@code admin}); depends on nothing else in the edge, so neither of those
 * two reaches the other through it.
 */
package org.sluice.edge.stats;
