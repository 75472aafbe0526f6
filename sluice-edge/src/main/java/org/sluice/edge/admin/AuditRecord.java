package org.sluice.edge.admin;

import java.util.Objects;
import org.sluice.core.Limit;

/**
 * One change to a tenant's runtime override, as kept in the audit trail.
 *
 * @param timeMillis wall-clock time of the change, epoch milliseconds
 * @param actor      who made it: the request's {@code X-Sluice-Actor}, else {@code admin}
 * @param action     {@code put} or {@code delete}
 * @param tenant     the tenant whose override changed
 * @param before     the override before the change, or null when there was none
 * @param after      the override after the change, or null when it was removed
 */
public record AuditRecord(long timeMillis, String actor, String action, String tenant, Limit before, Limit after) {

    public static final String PUT = "put";
    public static final String DELETE = "delete";

    public AuditRecord {
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(tenant, "tenant");
    }
}
