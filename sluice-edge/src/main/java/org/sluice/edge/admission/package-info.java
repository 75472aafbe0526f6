/**
 * Admission: who may send how much, decided without I/O on the request path. The limits
 * charged before the body is read ({@code PreReadLimits}: {@code NodeLimits} in one process,
 * {@code HostLimits} over the shared-memory {@code HostArena}, both on {@code PreReadBuckets}),
 * the tenant's side after verification ({@code TenantGate}: one call per hook, answered with
 * a sealed {@code Admission}), the fleet scope behind it ({@code FleetGate}, whose answers are
 * read here and nowhere else) and the refusal they return (a value, never an exception) with
 * its {@code RefusalScope}.
 *
 * <p>May use: {@code sluice-core}, {@code sluice-shm}, {@code sluice-fleet}, {@code config},
 * {@code store} (commit results only). Never {@code http}, {@code admin}, {@code server} or
 * {@code cli} (ArchitectureTest): nothing here knows about Netty, and no response is built
 * here.
 */
package org.sluice.edge.admission;
