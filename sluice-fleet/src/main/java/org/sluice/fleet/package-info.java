/**
 * The fleet client: admission and dedupe shared by the nodes of a fleet through Redis.
 *
 * <p>The public types are the API, pinned in {@code sluice-fleet/api/sluice-fleet.api}:
 * {@link org.sluice.fleet.FleetClient} and what it takes and answers ({@code FleetSettings},
 * {@code FleetAnswer}, {@code FleetLease}, {@code FleetCharges}, {@code FleetStats},
 * {@code FleetKind}, {@code BreakerState}), {@code FleetGcra}, the arithmetic the admit
 * script runs, and {@link org.sluice.fleet.FleetLimiter}, sluice-core's {@code KeyedLimit}
 * at fleet scope (its own script, {@code limit.lua}, group committed like admissions,
 * breaker and node-local fallback).
 *
 * <p>Everything else here is the client's machinery and package-private, so the compiler
 * keeps users (the edge included) out of it: the Redis link and its scripts
 * ({@code RedisLink}, {@code Script}), group commit of script calls ({@code AdmitBatcher},
 * {@code ScriptCall}; {@code AdmitRequest} and {@code AdmitReply} for admissions,
 * {@code LimitCall} for the limiter's charges), the circuit breaker ({@code CircuitBreaker},
 * {@code SlidingWindow}), the settle queue ({@code SettleQueue}, {@code Settler}), the
 * health counters ({@code Health}) and the key scheme ({@code Keys}). It lives in this
 * package, not in an {@code internal} one, because {@code FleetClient} assembles all of it
 * and Java without modules has no "public to one package".
 *
 * <p>Uses sluice-core, Lettuce and SLF4J only.
 */
package org.sluice.fleet;
