package org.sluice.edge.store;

import java.util.List;
import java.util.Map;
import org.sluice.core.OverrideStore;

/**
 * The control state: what operators set rather than what traffic writes. Rate-limit
 * overrides ({@link OverrideStore}, which {@code TenantLimits} loads and changes), paused
 * destinations ({@link DestinationPauses}), signing keys added at runtime ({@link SigningSecrets}),
 * and the audit trail of every such change.
 * Durable: a change answered survives a crash.
 *
 * <p>The actor of a change: {@code TenantLimits} calls {@link #put} without one, on the
 * caller's thread, so the admin layer names it around that call:
 * <pre>{@code
 * try (ControlState.ActorScope scope = control.actingAs(actorHeaderOrNull)) {
 *     tenantLimits.putOverride(tenant, limit);
 * }
 * }</pre>
 * Without a scope the actor is {@value #DEFAULT_ACTOR}.
 *
 * <p>Implementations are thread-safe. The RocksDB one is {@code RocksControlState}.
 */
public interface ControlState extends OverrideStore, DestinationPauses, SigningSecrets {

    /** The actor of a change made outside any {@link #actingAs} scope. */
    String DEFAULT_ACTOR = "admin";

    /**
     * The actor of a change Sluice made on its own rather than for an operator: a destination
     * the dispatcher disabled after it failed for its {@code disable_after}. The admin API
     * does not refuse this name in {@code X-Sluice-Actor}, so it tells what made a change,
     * not who may have.
     */
    String SLUICE_ACTOR = "sluice";

    /** Names the actor of the changes this thread makes until the scope closes. */
    ActorScope actingAs(String actor);

    /** Closing restores the previous actor. */
    @FunctionalInterface
    interface ActorScope extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Records an operator action that is not an override change (pausing a destination,
     * a redelivery, a replay), by the actor of the current {@link #actingAs} scope, in its
     * own durable write. The caller writes it right after the action succeeded, so a crash
     * between the two can leave an action without its record, never a record without it.
     *
     * @param action the word shown ({@code pause}, {@code resume}, {@code redeliver}, {@code replay})
     * @param tenant the tenant concerned, or null (delivery actions concern a destination)
     */
    void record(String action, String tenant, Map<String, Object> before, Map<String, Object> after);

    /** The newest {@code limit} audit records, newest first. */
    List<AuditRecord> audit(int limit);
}
