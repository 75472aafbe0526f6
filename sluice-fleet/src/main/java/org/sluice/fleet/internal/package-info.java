/**
 * The fleet client's machinery: the Redis link and its scripts, group commit of
 * admissions, the circuit breaker, the settle queue, the health counters and the key
 * scheme. Not API: nothing here is in {@code sluice-fleet/api/sluice-fleet.api}, and it
 * changes without notice. Users (the edge included) go through {@link
 * org.sluice.fleet.FleetClient} and the other types of {@code org.sluice.fleet}.
 *
 * <p>Why some classes here are public at all: {@code FleetClient}, in the root package,
 * assembles them, and Java without modules has no "public to one package". Those classes
 * keep public only the members {@code FleetClient} (and the root package's tests) call;
 * everything used only inside this package ({@code SlidingWindow}, the breaker's
 * {@code CALL}/{@code PROBE} reports, {@code Script.load}, {@code SettleQueue.poll},
 * {@code RedisLink.batch}...) is package-private.
 */
package org.sluice.fleet.internal;
