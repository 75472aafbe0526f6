package org.sluice.edge.admin;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.sluice.edge.store.AuditRecord;

/**
 * The audit side of an override store: who changed which override, read back newest
 * first. The store writes each record together with the change it describes (see
 * {@link InMemoryAuditedStore} and {@code RocksControlState}), so a change that fails leaves no
 * record and a record never describes a change that did not happen.
 *
 * <p>The override change itself goes through {@code TenantLimits.putOverride} /
 * {@code deleteOverride}, which call the store on the caller's thread; {@link #as} tells
 * the store who is calling for the duration of that call.
 */
public interface AuditTrail {

    /** Runs {@code change} on this thread with {@code actor} recorded as the author of any override change it makes. */
    <T> T as(String actor, Supplier<T> change);

    /**
     * Records an operator action other than an override change (a destination paused or
     * resumed, a redelivery, a replay), after it succeeded, with {@code actor} as its
     * author; {@code tenant} is null for delivery actions. Fsynced when the store is durable.
     */
    void record(String actor, String action, String tenant, Map<String, Object> before, Map<String, Object> after);

    /** The newest {@code limit} records (at least 1), newest first. */
    List<AuditRecord> newest(int limit);
}
