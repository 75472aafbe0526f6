package org.sluice.edge.admission;

/**
 * What {@link TenantGate#acquire} answers: the tenant's queue share is held ({@link Lease}, to
 * give back once the commit has answered) or it is full ({@link Refusal}, scope
 * {@link RefusalScope#TENANT_OVERLOAD}).
 */
public sealed interface ShareResult permits Lease, Refusal {
}
