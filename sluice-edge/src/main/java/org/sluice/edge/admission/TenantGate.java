package org.sluice.edge.admission;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The tenant's side of admission, after verification and the duplicate check of the node's
 * own store: one call per hook ({@link #admit}) whose answer is an {@link Admission}.
 * Thread-safe; called by the hook's stage, on its connection's event loop for a small body
 * and on a worker for a big one. Nothing here blocks; refusals are values.
 */
public interface TenantGate {

    /**
     * The biggest body {@code tenant} may send: asked before the body is read (by the
     * pipeline's size check and the refusal fast path, on the event loops).
     */
    long bodyLimit(String tenant);

    /**
     * Decides one hook of {@code bytes} from {@code tenant} on {@code source}, with its
     * dedupe key ({@code key}, null: none): first the tenant's share of the store
     * ({@code max_stored_bytes}, {@link StoreShares}), then under the fleet scope the fleet's answer (its
     * quota, its claim on the key), then the tenant's quota (hooks, then bytes), then its
     * share of the node's queue. Complete at once unless the fleet store is asked; then its
     * answer is read on {@code after}, never on the store client's threads.
     */
    CompletionStage<Admission> admit(String tenant, String source, String key, long bytes, Executor after);

    /** The answer for a hook the node's own store already holds under {@code hookId}. */
    Admission.Duplicate knownDuplicate(String tenant, String hookId);
}
