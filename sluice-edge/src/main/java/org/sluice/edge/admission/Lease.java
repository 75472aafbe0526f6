package org.sluice.edge.admission;

import org.sluice.core.QueueShares;

/**
 * A hook's place in its tenant's queue share, held from admission until the commit has
 * answered and then given back with {@link TenantGate#release}. {@link #NONE} when nothing
 * was counted (the tenant has no queue limit).
 */
public record Lease(QueueShares.Lease held) implements ShareResult {

    /** Nothing counted, nothing to give back. */
    public static final Lease NONE = new Lease(null);
}
